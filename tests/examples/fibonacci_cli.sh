#!/bin/sh
# The fibonacci example end to end: prove + verify (bytes equal OpenVM's),
# --verify on OpenVM's shipped proof (exit 0), on a corrupted copy (exit 1)
# and on a file that is not a proof (exit 2).
# usage: fibonacci_cli.sh FIBONACCI_BINARY TEST_DATA_DIR
set -u
bin=$1
data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" --log-rows 4 --params small --engine cpu --out "$tmp/p.bin" || fail "prove/verify exited $?"
cmp "$tmp/p.bin" "$data/openvm/fib-small_n4.proof.bin" || fail "proof bytes differ from OpenVM's"

"$bin" --log-rows 10 --params small --verify "$data/openvm/fib-small_n10.proof.bin"
[ $? -eq 0 ] || fail "OpenVM's fib-small_n10 proof not accepted"
"$bin" --log-rows 10 --params app:18 --verify "$data/openvm/fib-app18_n10.proof.bin"
[ $? -eq 0 ] || fail "OpenVM's fib-app18_n10 proof not accepted"

# one flipped byte in the middle of the proof: rejected (1) or malformed (2), never accepted
cp "$data/openvm/fib-small_n4.proof.bin" "$tmp/bad.bin" && chmod u+w "$tmp/bad.bin" &&
    printf '\377' | dd of="$tmp/bad.bin" bs=1 seek=2000 conv=notrunc 2>/dev/null || fail "cannot corrupt a copy"
cmp -s "$tmp/bad.bin" "$data/openvm/fib-small_n4.proof.bin" && fail "the copy was not changed"
"$bin" --log-rows 4 --verify "$tmp/bad.bin"
rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "corrupted proof: exit $rc, expected 1 or 2"

# another AIR's proof: rejected (1)
"$bin" --log-rows 4 --verify "$data/openvm/interactions-small.proof.bin"
rc=$?
[ $rc -eq 1 ] || fail "interactions proof against the Fibonacci key: exit $rc, expected 1"

# not a proof / missing file: 2
"$bin" --log-rows 4 --verify "$data/fib-small.prevk.bin"
rc=$?
[ $rc -eq 2 ] || fail "non-proof file: exit $rc, expected 2"
"$bin" --log-rows 4 --verify "$tmp/does-not-exist.bin"
rc=$?
[ $rc -eq 2 ] || fail "missing file: exit $rc, expected 2"
echo "fibonacci example: all checks passed"
