#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each, seeded from tests/data.
#   fuzz/run.sh BUILD_DIR SECONDS [target ...]
# BUILD_DIR was set up with -Dfuzz=true (see fuzz/meson.build). Each target
# starts from a fresh copy of its seeds in a temporary corpus (so runs are
# reproducible and the repository is not written to); new inputs found are
# kept in $FUZZ_KEEP/<target> if FUZZ_KEEP is set. A crash, leak, UB report,
# timeout (10 s per input) or property abort fails the run and leaves the
# reproducer as ./crash-*, ./leak-*, ./timeout-* in the current directory:
# replay with BUILD_DIR/fuzz/<target> FILE.
# FUZZ_SEED (default 1) fixes libFuzzer's random seed and FUZZ_RUNS (default:
# unlimited) caps the executions per target, so a CI run replays exactly a
# prefix of a run that was checked before committing; set FUZZ_SEED=0 for a
# time-seeded exploratory run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/../tests/data"
build="$1"
secs="$2"
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_proof fuzz_proof_prep fuzz_vk fuzz_air fuzz_ctx fuzz_ctx_prep fuzz_ctx_key)

# Sanitizer settings: halt on the first report, leaks included.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

seed_files() {
    case "$1" in
    fuzz_proof) ls "$data"/openvm/fib-small_n*.proof.bin "$data"/fuzz/proof-*.bin ;;
    fuzz_proof_prep) ls "$data"/fuzz/range_check_*.proof.bin ;;
    fuzz_vk) ls "$data"/fib-small.prevk.bin "$data"/interactions-small.prevk.bin "$data"/fib-app18.prevk.bin ;;
    fuzz_air) ;;
    # every shared context (the other statements' are refused early, and give
    # the mutator every structural shape), keys and proofs are not contexts
    fuzz_ctx | fuzz_ctx_prep) ls "$data"/openvm-ctx/*-small*.ctx.bin ;;
    fuzz_ctx_key) ls "$data"/openvm-ctx/interactions-small.prevk.bin "$data"/openvm-ctx/multi-sender-receiver-small.prevk.bin \
        "$data"/openvm-ctx/cached-small.prevk.bin "$data"/fuzz/ctx-key-*.prevk.bin ;;
    esac
}
# The executable of a target, and the key fuzz_proof verifies against.
binary() {
    case "$1" in
    fuzz_proof_prep) echo fuzz_proof ;;
    fuzz_ctx_prep) echo fuzz_ctx ;;
    *) echo "$1" ;;
    esac
}
proof_key() {
    case "$1" in
    fuzz_proof_prep) echo "$data/fuzz/range_check_b6.prevk.bin" ;;
    *) echo "" ;;
    esac
}
# The key fuzz_ctx reads contexts against (default: interactions-small's).
ctx_key() {
    case "$1" in
    fuzz_ctx_prep) echo "$data/openvm-ctx/preprocessed-cached-small_c2.prevk.bin" ;;
    *) echo "" ;;
    esac
}
max_len() {
    case "$1" in
    fuzz_proof | fuzz_proof_prep) echo 16384 ;;
    fuzz_vk | fuzz_ctx_key) echo 4096 ;;
    fuzz_ctx | fuzz_ctx_prep) echo 16384 ;;
    *) echo 2048 ;;
    esac
}

status=0
for t in "${targets[@]}"; do
    corpus="$(mktemp -d)"
    for f in $(seed_files "$t"); do cp "$f" "$corpus/"; done
    log="$(mktemp)"
    echo "== $t: ${secs}s, $(ls "$corpus" | wc -l) seeds"
    if FUZZ_PROOF_KEY="$(proof_key "$t")" FUZZ_CTX_KEY="$(ctx_key "$t")" "$build/fuzz/$(binary "$t")" "$corpus" -max_total_time="$secs" -seed="${FUZZ_SEED:-1}" -runs="${FUZZ_RUNS:--1}" \
        -timeout=10 -rss_limit_mb=2048 \
        -max_len="$(max_len "$t")" -print_final_stats=1 >"$log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
        echo "   ok: ${runs:-?} executions, $cov, corpus $(ls "$corpus" | wc -l) inputs"
    else
        status=1
        echo "   FAILED: last lines of the log:"
        tail -60 "$log"
    fi
    if [ -n "${FUZZ_KEEP:-}" ]; then
        mkdir -p "$FUZZ_KEEP/$t"
        cp "$corpus"/* "$FUZZ_KEEP/$t/" 2>/dev/null || true
    fi
    rm -rf "$corpus" "$log"
done
exit $status
