#!/bin/sh
# The fibonacci example on the GLES engine (llvmpipe in CI): phases the GLES
# engine implements run on the GPU, the rest fall back to the CPU engine (the
# program must say so), and the proof bytes still equal OpenVM's.
# usage: fibonacci_gles.sh FIBONACCI_BINARY TEST_DATA_DIR
set -u
bin=$1
data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for n in 1 4 10; do
    "$bin" --log-rows $n --params small --engine gles --out "$tmp/p.bin" > "$tmp/out.txt" || {
        cat "$tmp/out.txt"; fail "n$n: prove/verify on gles exited non-zero"; }
    cat "$tmp/out.txt"
    cmp "$tmp/p.bin" "$data/openvm/fib-small_n$n.proof.bin" || fail "n$n: proof bytes differ from OpenVM's"
    grep -q "^engine: gles" "$tmp/out.txt" || fail "n$n: the example did not report the GLES device"
done
echo "fibonacci example on gles: all checks passed"
