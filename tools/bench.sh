#!/bin/sh
# The benchmark harness of issue 8: builds release, runs the kernel
# benchmarks and the keccakf demo, and prints one table with the figures of
# the issue's targets, so every change is measured the same way.
#
#   tools/bench.sh [--engine gles|cpu] [--perms N] [--reps R] [--build DIR] [--no-build]
#                  [--logs DIR] [--quick] [--no-kernels] [--threads T]
#
#   --engine   engine of the demo runs and of the kernel benchmarks (gles)
#   --perms    Keccak-f permutations of the demo (1024); --reps: demo runs, median reported (3)
#   --build    release build folder (build-rel); --no-build uses it as it is (e.g. on a
#              machine without meson, with the folder carried over)
#   --logs     where every program's full output goes (bench-logs/<UTC time>)
#   --quick    1 demo run, no CPU DFT benchmark, 1 rep in bench_commit (a smoke run)
#   --no-kernels  only the demo
#   --threads  CPU engine threads (0 = one per core)
#   --report DIR  only print the table again from an earlier run's logs
# Needs only sh, awk, sort and the built programs. The GLSTARK_* environment
# variables (docs/tuning.md) choose the device as usual.
set -u
engine=gles
perms=1024
reps=3
build="build-rel"
do_build=1
logs=""
quick=0
kernels=1
threads=0
report=""
while [ $# -gt 0 ]; do
    case $1 in
    --engine) engine=$2; shift 2 ;;
    --perms) perms=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --logs) logs=$2; shift 2 ;;
    --quick) quick=1; reps=1; shift ;;
    --no-kernels) kernels=0; shift ;;
    --threads) threads=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done
case $engine in gles | cpu) ;; *) echo "bench.sh: --engine must be gles or cpu" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
die() { echo "bench.sh: $*" >&2; exit 1; }
if [ -n "$report" ]; then
    [ -d "$report" ] || die "no folder $report"
    logs=$report
    do_build=0
    kernels=0
    reps=$(ls "$logs"/keccakf_*.json 2>/dev/null | wc -l)
    engine=$(sed -n 's/^  "device": {"engine": "\([a-z]*\)".*/\1/p' "$logs/keccakf_1.json" 2>/dev/null)
    [ -n "$engine" ] || engine=gles
    perms=$(sed -n 's/^  "perms": \([0-9]*\),/\1/p' "$logs/keccakf_1.json" 2>/dev/null)
    [ -n "$perms" ] || perms="?"
fi
[ -n "$logs" ] || logs="bench-logs/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$logs" || exit 1

if [ -z "$report" ] && [ $do_build -eq 1 ]; then
    if [ ! -f "$build/build.ninja" ]; then
        meson setup "$build" --buildtype=release > "$logs/build.txt" 2>&1 || { cat "$logs/build.txt"; die "meson setup failed"; }
    fi
    ninja -C "$build" >> "$logs/build.txt" 2>&1 || { tail -40 "$logs/build.txt"; die "build failed"; }
fi
demo=$build/examples/keccakf
[ -n "$report" ] || [ -x "$demo" ] || die "$demo not built"

# run NAME CMD...: output to $logs/NAME.txt, echoed as it comes; failure noted, not fatal
failed=""
run() {
    name=$1; shift
    echo "== $name: $*"
    "$@" > "$logs/$name.txt" 2>&1
    rc=$?
    cat "$logs/$name.txt"
    [ $rc -eq 0 ] || { echo "   ($name exited $rc)"; failed="$failed $name"; }
    return $rc
}
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# jnum FILE KEY: a top-level number of the demo's JSON (one key per line)
jnum() { sed -n "s/^  \"$2\": \\([-0-9.e+]*\\),\\{0,1\\}\$/\\1/p" "$1" | head -1; }
# jspan FILE NAME: seconds of a span
jspan() { grep "\"name\": \"$2\"" "$1" | head -1 | sed -n 's/.*"seconds": \([-0-9.e+]*\).*/\1/p'; }

machine="$(uname -m), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)"

# ---- kernel benchmarks ----
if [ $kernels -eq 1 ]; then
    if [ "$engine" = gles ]; then
        run bench_field "$build/benches/bench_field" --n 22
    fi
    creps=3
    [ $quick -eq 1 ] && creps=1
    run bench_commit "$build/tests/commit/bench_commit" --engine "$engine" --reps $creps --threads "$threads"
    run bench_poseidon2 "$build/tests/hash/bench_poseidon2" 16 42 "$threads"
    [ $quick -eq 1 ] || run bench_dft "$build/tests/dft/bench_dft" "$threads"
fi

# ---- the demo: --reps timed runs (one proof per process, no spans: timing a
# span finishes the GPU queue), one run with the span tree, and one process
# proving 5 times on one device (the second and later proofs reuse what the
# first set up) ----
i=1
while [ -z "$report" ] && [ $i -le "$reps" ]; do
    run "keccakf_$i" "$demo" --perms "$perms" --seed 42 --log-stacked-height 21 --engine "$engine" \
        --threads "$threads" --no-spans --json "$logs/keccakf_$i.json"
    i=$((i + 1))
done
if [ -z "$report" ]; then
    run keccakf_spans "$demo" --perms "$perms" --seed 42 --log-stacked-height 21 --engine "$engine" \
        --threads "$threads" --json "$logs/keccakf_spans.json"
    [ $quick -eq 1 ] || run keccakf_repeat "$demo" --perms "$perms" --seed 42 --log-stacked-height 21 \
        --engine "$engine" --threads "$threads" --no-spans --repeat 5 --quiet --json "$logs/keccakf_repeat.json"
    # the 4 GB-board profile: the ES 3.1 floor's limits (so the codeword is
    # re-encoded, not kept) and the trace streamed, never held whole
    [ $quick -eq 1 ] || [ "$engine" != gles ] || run keccakf_board "$demo" --perms "$perms" --seed 42 \
        --log-stacked-height 21 --engine gles --threads "$threads" --no-spans --limits-floor --stream-trace \
        --json "$logs/keccakf_board.json"
fi

# ---- the table ----
col() { # MEASURES...: median of a figure over the demo runs (jnum/jspan)
    i=1
    while [ $i -le "$reps" ]; do
        f="$logs/keccakf_$i.json"
        [ -f "$f" ] && "$@" "$f"
        i=$((i + 1))
    done | grep . | median
}
jn() { jnum "$2" "$1"; }
js() { jspan "$2" "$1"; }
prove_s=$(col jn prove_seconds)
rss_b=$(col jn peak_rss_bytes)
gpu_b=$(col jn device_bytes_peak)
syncs=$(col jn host_syncs)
commit_span=$(jspan "$logs/keccakf_spans.json" stacked_commit 2>/dev/null)
repeat_med=$(sed -n 's/.*median of [0-9]* repeats \([0-9.]*\) s.*/\1/p' "$logs/keccakf_repeat.txt" 2>/dev/null | head -1)
repeat_alloc=$(jnum "$logs/keccakf_repeat.json" device_bytes_allocated 2>/dev/null)
first_alloc=$(col jn device_bytes_allocated)
board_b=""
if [ -f "$logs/keccakf_board.json" ]; then
    board_b=$(awk -v r="$(jnum "$logs/keccakf_board.json" peak_rss_bytes)" \
        -v g="$(jnum "$logs/keccakf_board.json" device_bytes_peak)" 'BEGIN {if (r != "" && g != "") print r + g}')
fi
verify_s=$(col jn verify_seconds)
proof_b=$(col jn proof_bytes)
renderer=$(sed -n 's/^device: //p' "$logs/keccakf_1.txt" 2>/dev/null | head -1)
fallback=$(sed -n 's/^note: CPU fallback: //p' "$logs/keccakf_1.txt" 2>/dev/null | head -1)

bc_total=""; p2_gles=""; p2_reg=""; dft_best=""; dft_best_shape=""; dft_big=""; copy_rw=""; shader_rw=""; fmul=""
if [ -f "$logs/bench_commit.txt" ]; then
    bc_total=$(awk '/^  total:/ {print $2; exit}' "$logs/bench_commit.txt")
    p2_gles=$(awk '/^poseidon2 via merkle 2\^22/ {for (i = 1; i < NF; i++) if ($(i + 1) == "M") {print $i; exit}}' "$logs/bench_commit.txt")
    p2_reg=$(awk '/^poseidon2 in registers/ {for (i = 1; i < NF; i++) if ($(i + 1) == "M") {print $i; exit}}' "$logs/bench_commit.txt")
    # every size's data rate with its shape; the best, and 2^22 x 42 (the
    # keccakf codeword's shape, where the most layers per byte are)
    rates=$(awk '/^dft fwd/ {for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print $i, $3 "x" $5}' \
        "$logs/bench_commit.txt" | sort -g)
    dft_best=$(echo "$rates" | tail -1 | cut -d' ' -f1)
    dft_best_shape=$(echo "$rates" | tail -1 | cut -d' ' -f2)
    dft_big=$(echo "$rates" | awk '$2 == "2^22x42" {print $1}')
    shader_rw=$(sed -n 's/^copy .* by a compute shader:.*read+write *\([0-9.]*\) GB\/s.*/\1/p' "$logs/bench_commit.txt" | head -1)
    copy_rw=$(sed -n 's/.*read+write *\([0-9.]*\) GB\/s.*/\1/p' "$logs/bench_commit.txt" | head -1)
fi
bfly=""; floor_ms=""; floor_mb=""
if [ -f "$logs/bench_field.txt" ]; then
    fmul=$(awk '/^base mul/ {for (i = 1; i < NF; i++) if ($i == "GPU:") {print $(i + 1); exit}}' "$logs/bench_field.txt")
    bfly=$(awk '/^butterfly/ {for (i = 1; i < NF; i++) if ($i == "GPU:") {print $(i + 1); exit}}' "$logs/bench_field.txt")
    floor_ms=$(sed -n 's/^DFT arithmetic floor: .* >= \([0-9.]*\) ms .*/\1/p' "$logs/bench_field.txt" | head -1)
    floor_mb=$(sed -n 's/^DFT arithmetic floor: .*; data \([0-9.]*\) MB each way.*/\1/p' "$logs/bench_field.txt" | head -1)
fi
p2_cpu=$(sed -n 's/^merkle commit .*ms, \([0-9.]*\) M perms\/s.*/\1/p' "$logs/bench_poseidon2.txt" 2>/dev/null | sort -g | tail -1)

fmt() { # VALUE SCALE DECIMALS [UNIT]: value*scale with its unit, or n/a
    if [ -z "$1" ] || [ "$1" = n/a ]; then echo n/a; else
        awk -v v="$1" -v s="$2" -v d="$3" -v u="${4:-}" 'BEGIN {printf "%.*f%s%s", d, v * s, u == "" ? "" : " ", u}'; fi
}
# DFT data rate (column bytes / time) against the copy rates (bytes copied /
# time, i.e. half the read+write figure): the engine's gs_buf_copy (its copy
# kernel on hardware GPUs, glCopyBufferSubData on software renderers) and the
# benchmark's 16-bytes-per-invocation copy shader
pct() { awk -v d="$1" -v c="$2" 'BEGIN {if (d != "" && c > 0) printf "%.1f%%", 100 * d / 1000 / (c / 2); else print "n/a"}'; }
dft_pct=$(pct "$dft_best" "$copy_rw")
dft_pct_sh=$(pct "$dft_best" "$shader_rw")
big_pct=$(pct "$dft_big" "$copy_rw")
big_pct_sh=$(pct "$dft_big" "$shader_rw")
# The fastest the DFT could be with this arithmetic (butterflies only, no
# memory): its data rate (MB/s) as a share of the shader copy
floor_rate=$(awk -v m="$floor_mb" -v t="$floor_ms" 'BEGIN {if (m != "" && t > 0) printf "%.1f", m / t * 1000}')
floor_pct_sh=$(pct "$floor_rate" "$shader_rw")
if [ "$engine" = gles ]; then prove_target="<= 0.5 s (H100/H200)"; else prove_target="<= 11 s (2-core CPU)"; fi

echo
# the library's own version string names the commit it was built from (the
# folder's git metadata may be older than a build carried to another machine)
version=$(sed -n 's/^  "glstark_version": "\(.*\)",$/\1/p' "$logs/keccakf_1.json" 2>/dev/null | head -1)
echo "== glstark benchmark table ($(date -u +%Y-%m-%dT%H:%MZ), glstark ${version:-?})"
echo "machine: $machine"
echo "device:  ${renderer:-?}"
[ -n "$fallback" ] && echo "CPU fallback: $fallback"
echo "logs:    $logs"
echo
printf '| %-48s | %-22s | %-26s |\n' "metric (issue 8 targets)" "measured" "target"
printf '|%s|%s|%s|\n' "--------------------------------------------------" "------------------------" "----------------------------"
printf '| %-48s | %-22s | %-26s |\n' "keccakf-$perms prove, $engine, median of $reps processes" "$(fmt "$prove_s" 1 3 "s")" "$prove_target"
printf '| %-48s | %-22s | %-26s |\n' "  same, 5 proofs in one process: median" "$(fmt "$repeat_med" 1 3 "s")" "$prove_target"
printf '| %-48s | %-22s | %-26s |\n' "peak host RSS, keccakf-$perms" "$(fmt "$rss_b" 1e-6 0 "MB")" "<= 1500 MB"
printf '| %-48s | %-22s | %-26s |\n' "engine buffer peak ($engine), keccakf-$perms" "$(fmt "$gpu_b" 1e-6 0 "MB")" "(GPU part of the above)"
[ "$engine" = gles ] && printf '| %-48s | %-22s | %-26s |\n' "  board profile: host RSS + GPU buffers" \
    "$(fmt "$board_b" 1e-6 0 "MB")" "<= 1500 MB (4 GB board)"
printf '| %-48s | %-22s | %-26s |\n' "main-trace commit 2^21 x 42, bench_commit" "$(fmt "$bc_total" 1 1 "ms")" "<= 60 ms (H100)"
printf '| %-48s | %-22s | %-26s |\n' "main-trace commit, span stacked_commit in proof" "$(fmt "$commit_span" 1e3 1 "ms")" "<= 60 ms (H100)"
printf '| %-48s | %-22s | %-26s |\n' "Poseidon2 perms/s via $engine (Merkle 2^22 x 8)" "$(fmt "$p2_gles" 1 1 "M/s")" ">= 1000 M/s (H100 via GLES)"
printf '| %-48s | %-22s | %-26s |\n' "Poseidon2 perms/s, $engine, in registers" "$(fmt "$p2_reg" 1 1 "M/s")" ">= 1000 M/s (H100 via GLES)"
printf '| %-48s | %-22s | %-26s |\n' "DFT 2^22 x 42 data rate ($engine) / shader copy" "$(fmt "$dft_big" 1e-3 1 "GB/s") = $big_pct_sh" ">= 50% of copy bandwidth"
printf '| %-48s | %-22s | %-26s |\n' "  same / engine copy (gs_buf_copy)" "$big_pct" ">= 50% of copy bandwidth"
printf '| %-48s | %-22s | %-26s |\n' "DFT best size ${dft_best_shape:-?} / shader copy" "$(fmt "$dft_best" 1e-3 1 "GB/s") = $dft_pct_sh" ">= 50% of copy bandwidth"
printf '| %-48s | %-22s | %-26s |\n' "  same / engine copy (gs_buf_copy)" "$dft_pct" ">= 50% of copy bandwidth"
printf '| %-48s | %-22s | %-26s |\n' "  DFT arithmetic floor (2^22 x 42) / shader copy" "$(fmt "$floor_ms" 1 3 "ms") = $floor_pct_sh" "(butterflies alone, no memory)"
printf '| %-48s | %-22s | %-26s |\n' "host syncs per keccakf proof" "$(fmt "$syncs" 1 0)" "<= 64"
echo
printf '| %-48s | %-22s |\n' "other figures" "measured"
printf '|%s|%s|\n' "--------------------------------------------------" "------------------------"
printf '| %-48s | %-22s |\n' "proof size" "$(fmt "$proof_b" 1 0 "bytes")"
printf '| %-48s | %-22s |\n' "verify time" "$(fmt "$verify_s" 1e3 1 "ms")"
printf '| %-48s | %-22s |\n' "buffers allocated anew: a process's first proof" "$(fmt "$first_alloc" 1e-6 0 "MB")"
printf '| %-48s | %-22s |\n' "  the 5th proof in one process" "$(fmt "$repeat_alloc" 1e-6 1 "MB")"
printf '| %-48s | %-22s |\n' "copy bandwidth read+write ($engine gs_buf_copy)" "$(fmt "$copy_rw" 1 1 "GB/s")"
printf '| %-48s | %-22s |\n' "copy bandwidth read+write (compute shader)" "$(fmt "$shader_rw" 1 1 "GB/s")"
printf '| %-48s | %-22s |\n' "base-field mul, GLES (bench_field 2^22)" "$(fmt "$fmul" 1 1 "G mul/s")"
printf '| %-48s | %-22s |\n' "DFT butterfly, GLES (bench_field 2^22)" "$(fmt "$bfly" 1 1 "G bfly/s")"
printf '| %-48s | %-22s |\n' "Poseidon2 CPU, Merkle 2^16 x 42, best threads" "$(fmt "$p2_cpu" 1 1 "M perms/s")"
echo
echo "anchors: OpenVM CPU prover keccakf-1024: 11.2 s on the 2-core dev machine, 3.3 s on the GPU machine's 16 cores;"
echo "         Metal (M2 Max) 2.42 s, its main commit 904 ms; OpenVM CPU peak memory 2.4 GB; OpenVM CUDA ~110-130 readbacks."
if [ -n "$failed" ]; then
    echo "FAILED:$failed (see $logs)"
    exit 1
fi
exit 0
