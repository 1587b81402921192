#!/bin/sh
# glstark-prove against the keccakf demo on the same statement: writes the
# keccakf-N key and proving context with the demo (--key-out, --ctx-out),
# then runs the demo and glstark-prove --no-check alternately R times each,
# one proof per process, and prints both prove-time medians, the context's
# read time, peak host RSS and the engine's buffer peak. Every glstark-prove
# proof must equal the demo's bytes.
#
#   tools/bench-prove.sh [--build DIR] [--engine gles|cpu] [--perms N] [--reps R] [--dir D]
#
#   --build  folder with examples/keccakf and examples/glstark-prove (build-rel)
#   --dir    where the key, context and proofs go (a fresh temporary folder)
# Needs sh, awk, sort and python3 (for the JSON records).
set -u
build=build-rel
engine=gles
perms=1024
reps=5
dir=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    --perms) perms=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "bench-prove.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done
[ -n "$dir" ] || dir=$(mktemp -d)
mkdir -p "$dir" || exit 1
k="$build/examples/keccakf"
p="$build/examples/glstark-prove"
[ -x "$k" ] && [ -x "$p" ] || { echo "bench-prove.sh: build $build first" >&2; exit 1; }
"$k" --perms "$perms" --engine cpu --quiet --key-out "$dir/k.prevk.bin" --ctx-out "$dir/k.ctx.bin" \
    --out "$dir/demo.proof.bin" >/dev/null || { echo "bench-prove.sh: writing the context failed" >&2; exit 1; }
echo "context: $(wc -c <"$dir/k.ctx.bin") bytes (keccakf-$perms), engine $engine, $reps runs each"
i=1
while [ "$i" -le "$reps" ]; do
    "$k" --perms "$perms" --engine "$engine" --quiet --no-spans --json "$dir/demo_$i.json" >/dev/null ||
        { echo "bench-prove.sh: keccakf run $i failed" >&2; exit 1; }
    "$p" --engine "$engine" --no-check --quiet --no-spans --json "$dir/prove_$i.json" --out "$dir/prove.proof.bin" \
        "$dir/k.prevk.bin" "$dir/k.ctx.bin" >/dev/null || { echo "bench-prove.sh: glstark-prove run $i failed" >&2; exit 1; }
    cmp -s "$dir/prove.proof.bin" "$dir/demo.proof.bin" ||
        { echo "bench-prove.sh: glstark-prove's proof differs from the demo's" >&2; exit 1; }
    i=$((i + 1))
done
python3 - "$dir" "$reps" <<'EOF'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
demo = [json.load(open(f"{d}/demo_{i}.json")) for i in range(1, n + 1)]
prove = [json.load(open(f"{d}/prove_{i}.json")) for i in range(1, n + 1)]
pc = [r["contexts"][0] for r in prove]
med = statistics.median
print(f"device: {demo[0]['device']['renderer']} ({demo[0]['device']['engine']})")
print(f"keccakf demo   prove median {med(r['prove_seconds'] for r in demo):.3f} s  "
      f"(runs {' '.join('%.3f' % r['prove_seconds'] for r in demo)}), peak RSS {med(r['peak_rss_bytes'] for r in demo)/2**20:.0f} MB, "
      f"buffers {med(r['device_bytes_peak'] for r in demo)/2**20:.0f} MB")
print(f"glstark-prove  prove median {med(c['prove_seconds'] for c in pc):.3f} s  "
      f"(runs {' '.join('%.3f' % c['prove_seconds'] for c in pc)}), context read median {med(c['read_seconds'] for c in pc):.3f} s, "
      f"peak RSS {med(r['peak_rss_bytes'] for r in prove)/2**20:.0f} MB, buffers {med(c['device_bytes_peak'] for c in pc)/2**20:.0f} MB")
print(f"ratio glstark-prove / demo: {med(c['prove_seconds'] for c in pc) / med(r['prove_seconds'] for r in demo):.3f}; "
      f"all {n} proofs equal the demo's bytes")
EOF
