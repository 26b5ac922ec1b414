// Command main prints kube-controller-manager's template hash of each pod template it reads: one JSON object
// per input line, {"template": <PodTemplateSpec as stored>, "collisionCount": <int or null>}, one line out
// per line in: the hash, then (with -dump) a tab and go-spew's %#v dump the hash is computed from.
//
// ComputeHash and DeepHashObject are upstream's (pkg/controller/controller_utils.go, pkg/util/hash/hash.go,
// k8s.io/apimachinery/pkg/util/rand SafeEncodeString), copied. The template is decoded from JSON, then every
// empty slice and map is made nil and every quantity canonical: kube-controller-manager reads templates as
// protobuf (from etcd through kube-apiserver), which has no empty repeated field or map, only an absent one,
// and carries a quantity as its canonical string.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"hash/fnv"
	"os"
	"reflect"

	"github.com/davecgh/go-spew/spew"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

var printer = spew.ConfigState{
	Indent:         " ",
	SortKeys:       true,
	DisableMethods: true,
	SpewKeys:       true,
}

func DeepHashObject(hasher hash.Hash, objectToWrite interface{}) {
	hasher.Reset()
	printer.Fprintf(hasher, "%#v", objectToWrite)
}

func ComputeHash(template *v1.PodTemplateSpec, collisionCount *int32) string {
	podTemplateSpecHasher := fnv.New32a()
	DeepHashObject(podTemplateSpecHasher, *template)

	// Add collisionCount in the hash if it exists.
	if collisionCount != nil {
		collisionCountBytes := make([]byte, 8)
		binary.LittleEndian.PutUint32(collisionCountBytes, uint32(*collisionCount))
		podTemplateSpecHasher.Write(collisionCountBytes)
	}

	return SafeEncodeString(fmt.Sprint(podTemplateSpecHasher.Sum32()))
}

const alphanums = "bcdfghjklmnpqrstvwxz2456789"

func SafeEncodeString(s string) string {
	r := make([]byte, len(s))
	for i, b := range []rune(s) {
		r[i] = alphanums[(int(b) % len(alphanums))]
	}
	return string(r)
}

var quantityType = reflect.TypeOf(resource.Quantity{})

// stored is what a Quantity is after kube-apiserver stored it: its protobuf Marshal writes String() (the
// canonical form), its Unmarshal calls ParseQuantity on that.
func stored(q resource.Quantity) reflect.Value {
	return reflect.ValueOf(resource.MustParse(q.String()))
}

// protobufShape makes empty slices and maps nil and quantities canonical, as a protobuf round trip does.
func protobufShape(v reflect.Value) {
	if v.Type() == quantityType {
		v.Set(stored(v.Interface().(resource.Quantity)))
		return
	}
	switch v.Kind() {
	case reflect.Ptr, reflect.Interface:
		if !v.IsNil() {
			protobufShape(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() {
				protobufShape(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			if !v.IsNil() {
				v.Set(reflect.Zero(v.Type()))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			protobufShape(v.Index(i))
		}
	case reflect.Map:
		if v.Len() == 0 && !v.IsNil() {
			v.Set(reflect.Zero(v.Type()))
		}
		if v.Type().Elem() == quantityType {
			for _, k := range v.MapKeys() {
				v.SetMapIndex(k, stored(v.MapIndex(k).Interface().(resource.Quantity)))
			}
		}
	}
}

type input struct {
	Template       v1.PodTemplateSpec `json:"template"`
	CollisionCount *int32             `json:"collisionCount"`
}

func main() {
	dump := flag.Bool("dump", false, "print the dump after the hash")
	flag.Parse()
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		protobufShape(reflect.ValueOf(&in.Template).Elem())
		out := ComputeHash(&in.Template, in.CollisionCount)
		if *dump {
			out += "\t" + printer.Sprintf("%#v", in.Template)
		}
		fmt.Println(out)
	}
}
