#!/bin/sh
# glstark-prove end to end on OpenVM's keys and proving contexts
# (tests/data/openvm-ctx): each small statement's proof is OpenVM's byte for
# byte (with and without the constraint check), --out-dir and --json with
# several contexts, every exit code (an unsatisfied trace 1; a truncated
# context, another statement's key, a missing file, bad usage 2; the worst of
# several), and the examples' --key-out/--ctx-out round trips (fibonacci,
# range_check, keccakf: glstark-prove on their files writes their proofs).
# usage: prove_cli.sh cpu|gles GLSTARK_PROVE FIBONACCI RANGE_CHECK KECCAKF TEST_DATA_DIR [PYTHON3]
# "gles" runs only the OpenVM statements on the GLES engine (llvmpipe in CI).
set -u
mode=$1
prove=$2
fib=$3
range=$4
keccakf=$5
data=$6/openvm-ctx
py=${7:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() { # EXPECTED_EXIT WHAT ARGS...
    want=$1
    what=$2
    shift 2
    "$prove" "$@" > "$tmp/out.txt" 2>&1
    rc=$?
    [ $rc -eq "$want" ] || { cat "$tmp/out.txt"; fail "$what: exit $rc, expected $want"; }
}
small="fib-small_n4 interactions-small multi-sender-receiver-small cached-small preprocessed-fib-small_n10 preprocessed-cached-small_c2"

# OpenVM's proofs, byte for byte
for s in $small; do
    for check in "" --no-check; do
        rm -f "$tmp/p.bin"
        expect 0 "$s $mode $check" --engine "$mode" --quiet $check --out "$tmp/p.bin" "$data/$s.prevk.bin" "$data/$s.ctx.bin"
        cmp "$tmp/p.bin" "$data/$s.proof.bin" || fail "$s ($mode $check): the proof differs from OpenVM's"
    done
done
if [ "$mode" = gles ]; then
    # the keccak-16 statement (production parameters) streamed from the
    # context and transposed by the GPU
    expect 0 "keccak-app21_p16 gles" --engine gles --no-check --quiet --out "$tmp/k.bin" \
        "$data/keccak-app21_p16.prevk.bin" "$data/keccak-app21_p16.ctx.bin"
    cmp "$tmp/k.bin" "$data/keccak-app21_p16.proof.bin" || fail "keccak-app21_p16 (gles): the proof differs"
    # --devices with an explicit index (device 0: the one that opens here)
    # proves on it; a missing directory for --out-dir is made
    expect 0 "--devices 0" --devices 0 --quiet --out-dir "$tmp/devs" "$data/fib-small_n4.prevk.bin" \
        "$data/fib-small_n4.ctx.bin" "$data/fib-small_n4.ctx.bin"
    cmp "$tmp/devs/fib-small_n4.proof.bin" "$data/fib-small_n4.proof.bin" || fail "--devices 0: the proof differs"
    # an index past the GPUs there are: exit 2, the message says how many were found
    expect 2 "--devices 7" --engine gles --devices 7 --quiet "$data/fib-small_n4.prevk.bin" "$data/fib-small_n4.ctx.bin"
    grep -q "device index 7" "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "--devices 7: no word of the index"; }
    echo "prove_cli (gles): ok"
    exit 0
fi
# --devices is for GPUs; a bad list is bad usage
expect 2 "--devices with --engine cpu" --engine cpu --devices 0 "$data/fib-small_n4.prevk.bin" "$data/fib-small_n4.ctx.bin"
expect 2 "--devices 0,0" --devices 0,0 "$data/fib-small_n4.prevk.bin" "$data/fib-small_n4.ctx.bin"
expect 2 "--devices x" --devices x "$data/fib-small_n4.prevk.bin" "$data/fib-small_n4.ctx.bin"

# production parameters (L = 21), 16 Keccak-f permutations
expect 0 "keccak-app21_p16" --engine cpu --no-check --out "$tmp/k.bin" "$data/keccak-app21_p16.prevk.bin" \
    "$data/keccak-app21_p16.ctx.bin"
cmp "$tmp/k.bin" "$data/keccak-app21_p16.proof.bin" || fail "keccak-app21_p16: the proof differs from OpenVM's"

# several contexts of one key (a copy of the context under another name):
# --out-dir writes DIR/NAME.proof.bin for NAME.ctx.bin, --json one record each
cp "$data/interactions-small.ctx.bin" "$tmp/again.ctx.bin"
mkdir "$tmp/dir"
expect 0 "--out-dir" --engine cpu --out-dir "$tmp/dir" --json "$tmp/r.json" "$data/interactions-small.prevk.bin" \
    "$data/interactions-small.ctx.bin" "$tmp/again.ctx.bin"
cmp "$tmp/dir/interactions-small.proof.bin" "$data/interactions-small.proof.bin" || fail "--out-dir: first proof"
cmp "$tmp/dir/again.proof.bin" "$data/interactions-small.proof.bin" || fail "--out-dir: second proof"
[ -s "$tmp/r.json" ] || fail "--json wrote nothing"
if [ -n "$py" ]; then
    "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["contexts"]
assert len(c) == 2, "expected 2 records, got %d" % len(c)
for r, name in zip(c, ["interactions-small", "again"]):
    assert r["context"].endswith(name + ".ctx.bin"), r["context"]
    assert r["exit"] == 0 and r["verified"] is True, r
    assert r["proof_file"].endswith(name + ".proof.bin"), r["proof_file"]
    assert r["proof_bytes"] == 6905, r["proof_bytes"]
' "$tmp/r.json" || fail "--json: not one record per context"
fi
expect 2 "--out with two contexts" --engine cpu --out "$tmp/x.bin" "$data/interactions-small.prevk.bin" \
    "$data/interactions-small.ctx.bin" "$tmp/again.ctx.bin"
[ -e "$tmp/x.bin" ] && fail "--out with two contexts wrote a file"

# an unsatisfied trace: exit 1, the AIR named (fib-small_n4: value 5 at byte 100 becomes 7)
cp "$data/fib-small_n4.ctx.bin" "$tmp/bad.ctx.bin" && chmod u+w "$tmp/bad.ctx.bin" &&
    printf '\007' | dd of="$tmp/bad.ctx.bin" bs=1 seek=100 conv=notrunc 2>/dev/null || fail "cannot change a copy"
cmp -s "$tmp/bad.ctx.bin" "$data/fib-small_n4.ctx.bin" && fail "the copy was not changed"
expect 1 "unsatisfied trace" --engine cpu --out "$tmp/u.bin" "$data/fib-small_n4.prevk.bin" "$tmp/bad.ctx.bin"
grep -q 'AIR 0' "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "unsatisfied trace: the AIR is not named"; }

# exit 2: a truncated context, another statement's key, missing files, bad usage
head -c 100 "$data/interactions-small.ctx.bin" > "$tmp/short.ctx.bin"
expect 2 "truncated context" --engine cpu "$data/interactions-small.prevk.bin" "$tmp/short.ctx.bin"
grep -q 'truncated' "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "truncated context: no 'truncated' in the message"; }
expect 2 "another statement's key" --engine cpu "$data/fib-small_n4.prevk.bin" "$data/interactions-small.ctx.bin"
expect 2 "a context as the key" --engine cpu "$data/fib-small_n4.ctx.bin" "$data/fib-small_n4.ctx.bin"
expect 2 "missing context" --engine cpu "$data/fib-small_n4.prevk.bin" "$tmp/none.ctx.bin"
expect 2 "missing key" --engine cpu "$tmp/none.prevk.bin" "$data/fib-small_n4.ctx.bin"
expect 2 "no context" --engine cpu "$data/fib-small_n4.prevk.bin"
expect 2 "no arguments"
expect 2 "unknown option" --engine cpu --bogus "$data/fib-small_n4.prevk.bin" "$data/fib-small_n4.ctx.bin"
expect 2 "unknown engine" --engine nope "$data/fib-small_n4.prevk.bin" "$data/fib-small_n4.ctx.bin"
expect 2 "--out and --out-dir" --engine cpu --out "$tmp/a" --out-dir "$tmp/dir" "$data/fib-small_n4.prevk.bin" \
    "$data/fib-small_n4.ctx.bin"

# several contexts: the worst code wins, and the good ones are still proved
rm -rf "$tmp/dir" && mkdir "$tmp/dir"
cp "$data/fib-small_n4.ctx.bin" "$tmp/good.ctx.bin"
expect 1 "good + unsatisfied" --engine cpu --out-dir "$tmp/dir" "$data/fib-small_n4.prevk.bin" "$tmp/good.ctx.bin" \
    "$tmp/bad.ctx.bin"
cmp "$tmp/dir/good.proof.bin" "$data/fib-small_n4.proof.bin" || fail "good + unsatisfied: the good proof"
head -c 50 "$data/fib-small_n4.ctx.bin" > "$tmp/cut.ctx.bin"
expect 2 "unsatisfied + truncated + good" --engine cpu --out-dir "$tmp/dir" "$data/fib-small_n4.prevk.bin" \
    "$tmp/bad.ctx.bin" "$tmp/cut.ctx.bin" "$tmp/good.ctx.bin"
expect 2 "truncated + unsatisfied" --engine cpu --out-dir "$tmp/dir" "$data/fib-small_n4.prevk.bin" \
    "$tmp/cut.ctx.bin" "$tmp/bad.ctx.bin"

# the examples' key and context files prove to the examples' own proofs
"$fib" --log-rows 4 --params small --engine cpu --key-out "$tmp/fib.key" --ctx-out "$tmp/fib.ctx" --out "$tmp/fib.proof" \
    > /dev/null || fail "fibonacci --ctx-out exited $?"
expect 0 "fibonacci's files" --engine cpu --out "$tmp/fib2.proof" "$tmp/fib.key" "$tmp/fib.ctx"
cmp "$tmp/fib.proof" "$tmp/fib2.proof" || fail "fibonacci: glstark-prove's proof differs from the example's"
cmp "$tmp/fib.proof" "$data/fib-small_n4.proof.bin" || fail "fibonacci --log-rows 4: not OpenVM's fib-small_n4 proof"
"$range" --bits 4 --count 16 --engine cpu --key-out "$tmp/range.key" --ctx-out "$tmp/range.ctx" --out "$tmp/range.proof" \
    > /dev/null || fail "range_check --ctx-out exited $?"
expect 0 "range_check's files" --engine cpu --out "$tmp/range2.proof" "$tmp/range.key" "$tmp/range.ctx"
cmp "$tmp/range.proof" "$tmp/range2.proof" || fail "range_check: glstark-prove's proof differs from the example's"
"$keccakf" --perms 2 --log-stacked-height 12 --engine cpu --quiet --key-out "$tmp/kf.key" --ctx-out "$tmp/kf.ctx" \
    --out "$tmp/kf.proof" > /dev/null || fail "keccakf --ctx-out exited $?"
expect 0 "keccakf's files" --engine cpu --no-check --out "$tmp/kf2.proof" "$tmp/kf.key" "$tmp/kf.ctx"
cmp "$tmp/kf.proof" "$tmp/kf2.proof" || fail "keccakf: glstark-prove's proof differs from the example's"
echo "prove_cli (cpu): ok"
