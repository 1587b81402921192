#!/usr/bin/env python3
"""Extracts the stacked-reduction inputs of one OpenVM proof from its debug
challenges file (OpenVM's own recorded values) into a small test-data file:

  l_skip L / n_stack S / r K + K lines / lambda 1 line / u S+1 lines /
  traces T + per sorted trace: log_height width need_rot air_id /
  slices M + per slice: commit trace trace_col stacked_col row log_height /
  [trace_cols ...] optional trace values for the prover test

Usage: extract_sred_vectors.py CHALLENGES.txt [PROOF.json] > OUT.txt
(values canonical; EF as 4 numbers)."""
import json, re, sys

text = open(sys.argv[1]).read()
def ef_list(name):
    m = re.search(re.escape(name) + r' \(len \d+\) = (\[\[.*?\]\])', text)
    return json.loads(m.group(1))
def ef_one(name):
    m = re.search(r'^' + re.escape(name) + r' = (\[[0-9,]+\])', text, re.M)
    return json.loads(m.group(1))

m = re.search(r'^l_skip = (\d+), n_stack = (\d+)', text, re.M)
l_skip, n_stack = int(m.group(1)), int(m.group(2))
out = [f'l_skip {l_skip}', f'n_stack {n_stack}']
r = ef_list('batch.r vector')
out.append(f'r {len(r)}'); out += [' '.join(map(str, e)) for e in r]
out.append('lambda'); out.append(' '.join(map(str, ef_one('stacking.lambda'))))
u = ef_list('stacking.u vector')
assert len(u) == n_stack + 1
out.append(f'u {len(u)}'); out += [' '.join(map(str, e)) for e in u]
traces = re.findall(r'^trace\[(\d+)\]: air_id = (\d+), log_height = (\d+) .*?common_main width = (\d+), need_rot = (true|false)', text, re.M)
out.append(f'traces {len(traces)}')
for t, air, lh, w, nr in traces:
    out.append(f'{lh} {w} {1 if nr == "true" else 0} {air}')
sl = re.findall(r'^  commit\[(\d+)\] mat\[(\d+)\] col\[(\d+)\] -> stacked col (\d+) rows (\d+)\.\.\d+ \(log_height (\d+)', text, re.M)
out.append(f'slices {len(sl)}')
out += [' '.join(s) for s in sl]
if len(sys.argv) > 2:
    js = json.load(open(sys.argv[2]))
    cols = []  # per sorted trace, per column: values
    if 'traces_col_major' in js:
        by_air = {t['air']: t['columns'] for t in js['traces_col_major']}
        for t, air, lh, w, nr in traces:
            cols.append(by_air[int(air)])
    elif 'trace_rows' in js:
        rows = js['trace_rows']
        cols.append([[row[c] for row in rows] for c in range(len(rows[0]))])
    out.append(f'trace_cols {sum(len(c) for c in cols)}')
    for ti, cs in enumerate(cols):
        for ci, c in enumerate(cs):
            out.append(f'{ti} {ci} {len(c)} ' + ' '.join(map(str, c)))
print('\n'.join(out))
