#!/bin/sh
# glstark-verify end to end: OpenVM's own proofs against OpenVM's own keys
# (accepted), the keys the examples write with --key-out (equal to OpenVM's,
# and accepting the examples' proofs), and every refusal with its exit code:
# a changed byte, another statement's key, truncated proof and key files, a
# file that is not a key, an endless file (/dev/zero), a missing file, bad
# usage.
# usage: verify_cli.sh GLSTARK_VERIFY FIBONACCI RANGE_CHECK KECCAKF TEST_DATA_DIR
set -u
verify=$1
fib=$2
range=$3
keccakf=$4
data=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() { # EXPECTED_EXIT WHAT ARGS...
    want=$1
    what=$2
    shift 2
    "$verify" "$@" > "$tmp/out.txt" 2>&1
    rc=$?
    cat "$tmp/out.txt"
    [ $rc -eq "$want" ] || fail "$what: exit $rc, expected $want"
}

# OpenVM's proofs and keys (tests/data: copied from OpenVM stark-backend v2.0.1's outputs)
expect 0 "fib-small proofs" "$data/fib-small.prevk.bin" "$data"/openvm/fib-small_n*.proof.bin
expect 0 "interactions-small" "$data/interactions-small.prevk.bin" "$data/openvm/interactions-small.proof.bin"
expect 0 "fib-app18" "$data/fib-app18.prevk.bin" "$data/openvm/fib-app18_n10.proof.bin"
expect 0 "keccak-app21, 16 permutations" "$data/keccak-app21.prevk.bin" "$data/openvm/keccak-app21_p16.proof.bin"
grep -q 'accepted' "$tmp/out.txt" || fail "no 'accepted' line"
expect 0 "--quiet" --quiet "$data/fib-small.prevk.bin" "$data/openvm/fib-small_n4.proof.bin"
[ -s "$tmp/out.txt" ] && fail "--quiet printed something on success"

# a changed byte: rejected (1) or malformed (2), never accepted
cp "$data/openvm/fib-small_n4.proof.bin" "$tmp/bad.bin" && chmod u+w "$tmp/bad.bin" &&
    printf '\377' | dd of="$tmp/bad.bin" bs=1 seek=3000 conv=notrunc 2>/dev/null || fail "cannot change a copy"
cmp -s "$tmp/bad.bin" "$data/openvm/fib-small_n4.proof.bin" && fail "the copy was not changed"
"$verify" "$data/fib-small.prevk.bin" "$tmp/bad.bin"
rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "changed proof: exit $rc, expected 1 or 2"

# another statement's key: rejected; several proofs: the worst outcome
expect 1 "Fibonacci proof, interactions key" "$data/interactions-small.prevk.bin" "$data/openvm/fib-small_n1.proof.bin"
grep -q 'REJECTED' "$tmp/out.txt" || fail "no REJECTED in the message"
expect 1 "one good, one rejected" "$data/fib-small.prevk.bin" "$data/openvm/fib-small_n1.proof.bin" \
    "$data/openvm/interactions-small.proof.bin"

# truncated or foreign files: 2
head -c 3000 "$data/openvm/fib-small_n1.proof.bin" > "$tmp/short.bin"
expect 2 "truncated proof" "$data/fib-small.prevk.bin" "$tmp/short.bin"
head -c 40 "$data/fib-small.prevk.bin" > "$tmp/short.key"
expect 2 "truncated key" "$tmp/short.key" "$data/openvm/fib-small_n1.proof.bin"
expect 2 "a proof given as the key" "$data/openvm/fib-small_n1.proof.bin" "$data/openvm/fib-small_n1.proof.bin"
expect 2 "missing proof" "$data/fib-small.prevk.bin" "$tmp/does-not-exist.bin"
expect 2 "missing key" "$tmp/does-not-exist.key" "$data/openvm/fib-small_n1.proof.bin"
expect 2 "an endless file as the proof" "$data/fib-small.prevk.bin" /dev/zero
grep -q 'more than' "$tmp/out.txt" || fail "/dev/zero: the message does not name the size limit"
expect 2 "no proof named" "$data/fib-small.prevk.bin"
expect 2 "no arguments"

# the examples' --key-out: the fib-small key is OpenVM's byte for byte, and
# the keys verify the examples' proofs
"$fib" --log-rows 4 --params small --engine cpu --out "$tmp/fib.proof" --key-out "$tmp/fib.key" ||
    fail "fibonacci --key-out exited $?"
cmp "$tmp/fib.key" "$data/fib-small.prevk.bin" || fail "the written fib-small key differs from OpenVM's"
expect 0 "fibonacci's proof, its written key" "$tmp/fib.key" "$tmp/fib.proof"
"$keccakf" --perms 16 --log-stacked-height 21 --key-out "$tmp/keccak.key" \
    --verify "$data/openvm/keccak-app21_p16.proof.bin" || fail "keccakf --key-out --verify exited $?"
cmp "$tmp/keccak.key" "$data/keccak-app21.prevk.bin" || fail "the written keccak-app21 key differs from OpenVM's"
"$range" --bits 6 --count 256 --engine cpu --out "$tmp/range.proof" --key-out "$tmp/range.key" ||
    fail "range_check --key-out exited $?"
expect 0 "range_check's proof (a preprocessed table), its written key" "$tmp/range.key" "$tmp/range.proof"
expect 1 "range_check's proof, the Fibonacci key" "$tmp/fib.key" "$tmp/range.proof"
echo "verify_cli: ok"
