#!/bin/sh
# Assemble a GOPATH that builds main.go (the upstream ComputeHash) with Go >= 1.19 and no module proxy:
# k8s.io/api core/v1 types.go and apimachinery's meta/v1, resource, intstr and types sources copied verbatim
# from the given release tags of local git mirrors, go-spew and inf.v0 from theirs, and stubs (stubs/) for the
# packages those files import only for methods the hash never calls (CBOR, klog, runtime.RawExtension).
#
# usage: tools/templatehash/gopath.sh OUT API_GIT APIMACHINERY_GIT SPEW_GIT INF_GIT [TAG]
#   (TAG: the k8s.io/api and apimachinery tag, default v0.33.13; go-spew at kubernetes' pinned d8f796af33cc)
# then: GO111MODULE=off GOPATH=OUT go run tools/templatehash/main.go < templates.jsonl
set -eu
OUT=$1 API=$2 AM=$3 SPEW=$4 INF=$5 TAG=${6:-v0.33.13}
HERE=$(cd "$(dirname "$0")" && pwd)
src=$OUT/src
copy() { # repo rev path dest
  mkdir -p "$(dirname "$4")"; git --git-dir="$1" show "$2:$3" > "$4"
}
copy "$API" "$TAG" core/v1/types.go "$src/k8s.io/api/core/v1/types.go"
for f in types.go time.go micro_time.go duration.go; do
  copy "$AM" "$TAG" "pkg/apis/meta/v1/$f" "$src/k8s.io/apimachinery/pkg/apis/meta/v1/$f"
done
for f in quantity.go amount.go math.go scale_int.go suffix.go; do
  copy "$AM" "$TAG" "pkg/api/resource/$f" "$src/k8s.io/apimachinery/pkg/api/resource/$f"
done
copy "$AM" "$TAG" pkg/util/intstr/intstr.go "$src/k8s.io/apimachinery/pkg/util/intstr/intstr.go"
copy "$AM" "$TAG" pkg/types/uid.go "$src/k8s.io/apimachinery/pkg/types/uid.go"
for f in common.go config.go format.go dump.go spew.go bypass.go doc.go; do
  copy "$SPEW" d8f796af33cc11cb798c1aaeb27a4ebc5099927d "spew/$f" "$src/github.com/davecgh/go-spew/spew/$f"
done
for f in dec.go rounder.go; do copy "$INF" HEAD "$f" "$src/gopkg.in/inf.v0/$f"; done
cp -r "$HERE/stubs/." "$src/"
