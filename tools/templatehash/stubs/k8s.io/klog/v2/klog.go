// Package klog stands in for k8s.io/klog/v2 (intstr.go logs through Errorf only).
package klog

import "log"

func Errorf(format string, args ...interface{}) { log.Printf(format, args...) }
