#!/usr/bin/env sh
# Python stubs for the API from proto/, with protoc >= 3.15 (proto3 `optional`)
# and gRPC's Python plugin. Debian: apt-get install protobuf-compiler
# protobuf-compiler-grpc libprotobuf-dev (the well-known types) python3-grpcio python3-protobuf
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/generated}
mkdir -p "$out"
protoc -I "$here/../../proto" \
  --python_out="$out" \
  --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
  "$here"/../../proto/callercontext/v1/*.proto
# google.rpc.Status, to read an error's details (rpc_status.proto says why it is here).
protoc -I "$here" --python_out="$out" "$here/rpc_status.proto"
