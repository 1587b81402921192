#!/bin/sh
# The keccakf demo end to end on a small case (2 permutations, stacked height
# 2^12): exit codes, the --json figures (parsed with python3), --jobs 2 proving
# two independent statements (each job's proof equal to a single run of its
# seed), --jobs 2 --same-statement giving identical bytes, --check, --out + --verify (0 accepted, 1/2 for a corrupted
# copy), --repeat 2 --no-spans, --keep-trace, --stream-trace, --codeword, and bad
# arguments (2).
# usage: keccakf_demo.sh KECCAKF_BINARY ENGINE [PYTHON3]
set -u
bin=$1
engine=$2
py=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL ($engine): $*"; exit 1; }
small="--perms 2 --seed 42 --log-stacked-height 12 --engine $engine"

# shellcheck disable=SC2086
"$bin" $small --json "$tmp/k.json" --out "$tmp/p.bin" > "$tmp/out.txt" 2>&1 || {
    cat "$tmp/out.txt"; fail "prove/verify exited non-zero"; }
cat "$tmp/out.txt"
for want in "^glstark [0-9]*\.[0-9]*\.[0-9]* (.*)$" "^device: $engine engine" "stark_prove_excluding_trace" "prover.main_trace_commit" \
    "round0" "mle_rounds" "stacked_reduction" "whir" "^host syncs: " "^memory: peak host RSS" \
    "^proof: [0-9]* bytes" "^verify: accepted"; do
    grep -q "$want" "$tmp/out.txt" || fail "the output lacks '$want'"
done
# the commit encodes the codeword whole then builds the tree, or streams it
# into the tree (an engine that does not keep the codeword)
{ grep -q "rs_code_matrix" "$tmp/out.txt" && grep -q "merkle_tree" "$tmp/out.txt"; } ||
    grep -q "rs_code_merkle_streamed" "$tmp/out.txt" || fail "the output lacks the commit's spans"

# The JSON: valid, with the figures and OpenVM's span tree (names and parents).
check_json() { # FILE JOBS CHECK [INDEPENDENT]
    if [ -n "$py" ]; then
        "$py" - "$1" "$2" "$3" "$engine" "${4:-0}" <<'PYEOF' || fail "JSON check of $1"
import json, sys
path, jobs, check, engine = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
independent = sys.argv[5] == "1"
d = json.load(open(path))
def need(cond, what):
    if not cond:
        sys.exit("json: " + what + ": " + json.dumps(d)[:2000])
need(d["program"] == "keccakf" and d["perms"] == 2 and d["seed"] == 42 and d["log_stacked_height"] == 12, "header")
need(d["device"]["engine"] == engine, "device engine")
need(d["device"]["cpu_vector_set"] in ("avx512", "avx2", "none"), "cpu_vector_set")
need(d["glstark_version"].split(" (")[0].count(".") == 2 and d["glstark_version"].endswith(")"), "glstark_version")
need(d["jobs"] == jobs and len(d["prove_seconds_per_job"]) == jobs, "jobs")
need(d["constraint_check"] == check, "constraint_check flag")
need(d["prove_seconds"] > 0 and d["wall_seconds_all_jobs"] > 0, "times")
need(d["proof_bytes"] > 0 and d["verified"] is True and d["verify_seconds"] > 0, "proof and verify")
need(d["host_syncs"] > 0 and d["host_syncs"] == d["device_host_syncs"] + d["fallback_host_syncs"], "host syncs")
need(isinstance(d["upload_waits"], int) and d["upload_waits"] >= 0, "upload_waits")
need(d["peak_rss_bytes"] > 1 << 20 and d["device_bytes_peak"] > 0, "memory")
# a process's first proof allocates at least its peak (nothing to reuse yet)
need(d["device_bytes_allocated"] >= d["device_bytes_peak"] and d["fallback_bytes_allocated"] >= 0, "bytes allocated")
need(d["jobs_independent"] is independent, "jobs_independent")
need(d["jobs_identical"] is (None if independent else True), "jobs identical")
need(d["jobs_verified"] == (jobs if independent else 1), "jobs verified")
# a GLES process builds its GPU programs in its first proof; the CPU engine has none
gpu = d["device"]["engine"] == "gles"
need((d["programs_built"] > 0 and d["program_build_seconds"] > 0) if gpu
     else (d["programs_built"] == 0 and d["program_build_seconds"] == 0), "programs built")
# a trace no other job reads is freed once its prover has its copy
need(d["trace_released"] is (jobs == 1 or independent), "trace_released")
spans = d["spans"]
names = [s["name"] for s in spans]
def parent_of(n):
    p = spans[names.index(n)]["parent"]
    return names[p] if p >= 0 else None
tree = {"stark_prove_excluding_trace": None,
        "prover.main_trace_commit": "stark_prove_excluding_trace",
        "stacked_commit": "prover.main_trace_commit",
        "prover.rap_constraints": "stark_prove_excluding_trace",
        "logup_gkr": "prover.rap_constraints", "round0": "prover.rap_constraints",
        "mle_rounds": "prover.rap_constraints",
        "prover.openings": "stark_prove_excluding_trace",
        "stacked_reduction": "prover.openings", "whir": "prover.openings"}
if "rs_code_merkle_streamed" in names:
    tree["rs_code_merkle_streamed"] = "stacked_commit"
else:
    tree.update({"rs_code_matrix": "stacked_commit", "merkle_tree": "stacked_commit"})
for n, p in tree.items():
    need(n in names, "span " + n + " missing")
    need(parent_of(n) == p, "span " + n + " under " + str(parent_of(n)) + ", expected " + str(p))
need(("check_constraints" in names) == check, "check_constraints span iff --check")
for s in spans:
    need(s["seconds"] >= 0 and s["start"] >= 0, "span times")
    if s["parent"] >= 0:
        q = spans[s["parent"]]
        # 6-decimal rounding of start and seconds: allow a few microseconds
        need(q["start"] <= s["start"] + 1e-5 and s["start"] + s["seconds"] <= q["start"] + q["seconds"] + 1e-5,
             "span " + s["name"] + " outside its parent")
root = spans[names.index("stark_prove_excluding_trace")]
# the root span is the prove time less the (debug) constraint check
excl = d["prove_seconds"] - d["phase_seconds"]["check"]
need(abs(root["seconds"] - excl) <= 0.05 * excl + 0.01, "root span vs prove time")
print("json ok:", path)
PYEOF
    else
        for k in '"proof_bytes": [1-9]' '"host_syncs": [1-9]' '"peak_rss_bytes": [1-9]' '"device_bytes_peak": [1-9]' \
            '"device_bytes_allocated": [1-9]' '"verified": true' '"name": "mle_rounds"'; do
            grep -q "$k" "$1" || fail "$1 lacks $k"
        done
        if [ "${4:-0}" = 1 ]; then
            grep -q '"jobs_identical": null' "$1" || fail "$1: jobs_identical is not null"
        else
            grep -q '"jobs_identical": true' "$1" || fail "$1: jobs_identical is not true"
        fi
    fi
}
check_json "$tmp/k.json" 1 0

# the written proof verifies; a corrupted copy does not
"$bin" --perms 2 --log-stacked-height 12 --verify "$tmp/p.bin" || fail "--verify of the written proof exited $?"
cp "$tmp/p.bin" "$tmp/bad.bin" && chmod u+w "$tmp/bad.bin" &&
    printf '\377' | dd of="$tmp/bad.bin" bs=1 seek=5000 conv=notrunc 2>/dev/null || fail "cannot corrupt a copy"
cmp -s "$tmp/bad.bin" "$tmp/p.bin" && fail "the copy was not changed"
"$bin" --perms 2 --log-stacked-height 12 --verify "$tmp/bad.bin"
rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "corrupted proof: exit $rc, expected 1 or 2"

# two concurrent jobs, one device each, the same statement: identical bytes,
# equal to the single run's
# shellcheck disable=SC2086
"$bin" $small --jobs 2 --same-statement --check --quiet --json "$tmp/j.json" --out "$tmp/p2.bin" > "$tmp/out2.txt" 2>&1 || {
    cat "$tmp/out2.txt"; fail "--jobs 2 --same-statement exited non-zero"; }
cat "$tmp/out2.txt"
grep -q "jobs identical" "$tmp/out2.txt" || fail "--jobs 2 --same-statement did not report identical proofs"
cmp "$tmp/p.bin" "$tmp/p2.bin" || fail "--jobs 2 --same-statement proof differs from the single-job proof"
check_json "$tmp/j.json" 2 1

# two concurrent jobs proving independent statements (seeds 42 and 43): job
# 0's proof is the single run's, job 1's the single run of seed 43's, and
# they differ
# shellcheck disable=SC2086
"$bin" $small --jobs 2 --quiet --json "$tmp/ji.json" --out "$tmp/pi.bin" > "$tmp/outi.txt" 2>&1 || {
    cat "$tmp/outi.txt"; fail "--jobs 2 exited non-zero"; }
cat "$tmp/outi.txt"
grep -q "independent jobs all verified" "$tmp/outi.txt" || fail "--jobs 2 did not report its independent proofs"
check_json "$tmp/ji.json" 2 0 1
cmp "$tmp/p.bin" "$tmp/pi.bin" || fail "--jobs 2: job 0's proof differs from the single run of seed 42"
# shellcheck disable=SC2086
"$bin" $(echo "$small" | sed 's/--seed 42/--seed 43/') --quiet --out "$tmp/p43.bin" > "$tmp/out43.txt" 2>&1 || {
    cat "$tmp/out43.txt"; fail "the seed-43 run exited non-zero"; }
cmp "$tmp/p43.bin" "$tmp/pi.bin.1" || fail "--jobs 2: job 1's proof differs from the single run of seed 43"
cmp -s "$tmp/pi.bin" "$tmp/pi.bin.1" && fail "--jobs 2: the two statements gave the same proof"

# --repeat 2 --no-spans: two proofs on one device, equal to the first run's; no spans recorded
# shellcheck disable=SC2086
"$bin" $small --repeat 2 --no-spans --json "$tmp/r.json" --out "$tmp/p3.bin" > "$tmp/out3.txt" 2>&1 || {
    cat "$tmp/out3.txt"; fail "--repeat 2 --no-spans exited non-zero"; }
cat "$tmp/out3.txt"
grep -q "^repeat: 2 proofs on one device: .* all identical" "$tmp/out3.txt" || fail "--repeat 2 did not report its proofs"
grep -q "^spans: not recorded" "$tmp/out3.txt" || fail "--no-spans still printed spans"
cmp "$tmp/p.bin" "$tmp/p3.bin" || fail "--repeat proof differs from the single run's"
grep -q '"spans_recorded": false' "$tmp/r.json" || fail "r.json: spans_recorded is not false"
grep -q '"prove_seconds_repeats": \[[0-9.]*, [0-9.]*\]' "$tmp/r.json" || fail "r.json: not two repeat times"

# --keep-trace: the trace stays allocated (reported), the proof is the same
# shellcheck disable=SC2086
"$bin" $small --keep-trace --quiet --json "$tmp/kt.json" --out "$tmp/p4.bin" > "$tmp/out4.txt" 2>&1 || {
    cat "$tmp/out4.txt"; fail "--keep-trace exited non-zero"; }
cmp "$tmp/p.bin" "$tmp/p4.bin" || fail "--keep-trace proof differs from the single run's"
grep -q '"trace_released": false' "$tmp/kt.json" || fail "kt.json: trace_released is not false"
grep -q '"trace_released": true' "$tmp/k.json" || fail "k.json: trace_released is not true"

# --stream-trace: the prover asks for the rows in blocks, no whole trace; same proof
# shellcheck disable=SC2086
"$bin" $small --stream-trace --quiet --json "$tmp/st.json" --out "$tmp/p5.bin" > "$tmp/out5.txt" 2>&1 || {
    cat "$tmp/out5.txt"; fail "--stream-trace exited non-zero"; }
cmp "$tmp/p.bin" "$tmp/p5.bin" || fail "--stream-trace proof differs from the single run's"
grep -q '"trace_streamed": true' "$tmp/st.json" || fail "st.json: trace_streamed is not true"
grep -q '"trace_streamed": false' "$tmp/k.json" || fail "k.json: trace_streamed is not false"

# --codeword keep / reencode: the same proof, and the JSON says which ran
# (the default depends on the device: kept on the CPU engine and on
# desktop-class GPUs)
for cw in keep reencode; do
    if [ $cw = keep ]; then want=false; else want=true; fi
    # shellcheck disable=SC2086
    "$bin" $small --codeword $cw --quiet --json "$tmp/cw.json" --out "$tmp/p6.bin" > "$tmp/out6.txt" 2>&1 || {
        cat "$tmp/out6.txt"; fail "--codeword $cw exited non-zero"; }
    cmp "$tmp/p.bin" "$tmp/p6.bin" || fail "--codeword $cw proof differs from the single run's"
    grep -q "\"codeword_reencoded\": $want" "$tmp/cw.json" || fail "--codeword $cw: codeword_reencoded is not $want"
done
if [ "$engine" = "cpu" ]; then
    grep -q '"codeword_reencoded": false' "$tmp/k.json" || fail "k.json: the CPU engine re-encoded by default"
fi

# bad arguments: 2
for args in "--jobs 0" "--repeat 0" "--repeat 33" "--engine foo" "--perms x" "--platform nowhere" "--frobnicate" \
    "--stream-trace --jobs 2" "--stream-trace --check" "--codeword sometimes"; do
    # shellcheck disable=SC2086
    "$bin" $args > /dev/null 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "'$args': exit $rc, expected 2"
done
echo "keccakf demo ($engine): all checks passed"
