#!/bin/sh
# The range_check example (an AIR with a preprocessed table) end to end:
# prove + verify on the CPU engine and on the GLES device (the same bytes),
# --verify of the file (0), of a corrupted copy (1 or 2), against another
# table size (1), and --bad refused before proving (1).
# usage: range_check.sh RANGE_CHECK_BINARY
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" --bits 8 --count 1024 --seed 7 --engine cpu --out "$tmp/cpu.bin" || fail "CPU prove/verify exited $?"
"$bin" --bits 8 --count 1024 --seed 7 --engine gles --out "$tmp/gles.bin" || fail "GLES prove/verify exited $?"
cmp "$tmp/cpu.bin" "$tmp/gles.bin" || fail "the CPU and GLES proofs differ"
"$bin" --bits 3 --count 2 --params app:12 --engine cpu || fail "a table below 2^l_skip rows: exit $?"

"$bin" --bits 8 --verify "$tmp/cpu.bin" || fail "--verify of the new proof: exit $?"
"$bin" --bits 9 --verify "$tmp/cpu.bin"
rc=$?
[ $rc -eq 1 ] || fail "the proof against a 2^9 table: exit $rc, expected 1"
cp "$tmp/cpu.bin" "$tmp/bad.bin" &&
    printf '\377' | dd of="$tmp/bad.bin" bs=1 seek=300 conv=notrunc 2>/dev/null || fail "cannot corrupt a copy"
cmp -s "$tmp/bad.bin" "$tmp/cpu.bin" && fail "the copy was not changed"
"$bin" --bits 8 --verify "$tmp/bad.bin"
rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "corrupted proof: exit $rc, expected 1 or 2"

"$bin" --bits 8 --count 1024 --engine cpu --bad > "$tmp/bad.txt" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "--bad: exit $rc, expected 1"
grep -q "bus 0 does not balance" "$tmp/bad.txt" || { cat "$tmp/bad.txt"; fail "--bad: no message naming the bus"; }
echo "range_check: all checks passed"
