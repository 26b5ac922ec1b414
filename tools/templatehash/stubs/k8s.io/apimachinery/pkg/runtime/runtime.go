// Package runtime stands in for apimachinery's runtime: meta/v1 types.go names RawExtension in List and
// WatchEvent, neither of which a pod template holds.
package runtime

type RawExtension struct {
	Raw    []byte
	Object interface{}
}
