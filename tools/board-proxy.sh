#!/bin/sh
# Board proxy (issue 28): keccakf on Mesa llvmpipe with one thread, the
# OpenGL ES 3.1 floor limits and the kernel profile on, a rough stand-in for
# the slow GPUs of small boards. Prints the longest single dispatch per
# kernel, the total time, peak host RSS and the GPU buffer peak.
#
#   tools/board-proxy.sh [--perms N (64)] [--build DIR (build)]
#
# GLSTARK_DISPATCH_MS passes through (unset: 50 ms on llvmpipe; 0: no
# budget). docs/benchmarks.md describes it.
set -eu
perms=64
build=build
while [ $# -gt 0 ]; do
    case "$1" in
    --perms) perms=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "usage: $0 [--perms N] [--build DIR]" >&2; exit 2 ;;
    esac
done
demo="$build/examples/keccakf"
[ -x "$demo" ] || { echo "error: $demo not found (build first, or pass --build DIR)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s.%N)
LP_NUM_THREADS=1 GLSTARK_LIMITS=es31-min GLSTARK_PROFILE=1 "$demo" --perms "$perms" --engine gles --no-spans \
    --quiet --json "$tmp/out.json" >"$tmp/stdout" 2>"$tmp/stderr" || {
    cat "$tmp/stdout" "$tmp/stderr" >&2
    exit 1
}
t1=$(date +%s.%N)
echo "board proxy: keccakf --perms $perms, LP_NUM_THREADS=1, GLSTARK_LIMITS=es31-min, GLSTARK_DISPATCH_MS=${GLSTARK_DISPATCH_MS:-default}"
grep '^GLSTARK_PROFILE: longest' "$tmp/stderr" || true
echo "longest single dispatch per kernel (ms; the most process CPU time of one dispatch beside it, which"
echo "other processes on the host do not inflate; each program's first dispatch, with llvmpipe's compile, apart):"
grep '^GLSTARK_PROFILE longest' "$tmp/stderr" | sed 's/^GLSTARK_PROFILE longest */  /'
python3 - "$tmp/out.json" "$t0" "$t1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ld = j.get("longest_dispatch") or {}
print("longest dispatch: %.1f ms (%s)" % (ld.get("ms", 0.0), ld.get("kernel", "-")))
lc = j.get("longest_dispatch_cpu") or {}
print("longest dispatch in CPU time: %.1f ms (%s)" % (lc.get("ms", 0.0), lc.get("kernel", "-")))
print("prove %.2f s (with the profile's glFinish around every dispatch); whole run %.1f s"
      % (j["prove_seconds"], float(sys.argv[3]) - float(sys.argv[2])))
print("peak host RSS %.1f MiB, GPU buffers peak %.1f MiB, verified %s"
      % (j["peak_rss_bytes"] / 1048576, j["device_bytes_peak"] / 1048576, j["verified"]))
PY
