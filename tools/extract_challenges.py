#!/usr/bin/env python3
"""Extracts the named Fiat-Shamir challenges of one OpenVM proof from its
debug challenges file (OpenVM's own recorded values) into a flat test-data
file: a line "<name> <count> <words per item>" then the values (canonical),
one item per line.

Usage: extract_challenges.py CHALLENGES.txt > OUT.txt"""
import json, re, sys

text = open(sys.argv[1]).read()
out = []
def emit(name, items, words):
    out.append(f'{name} {len(items)} {words}')
    for it in items:
        out.append(' '.join(map(str, it if isinstance(it, list) else [it])))
def one(pat):
    m = re.search(pat, text, re.M)
    return json.loads(m.group(1)) if m else None

m = re.search(r'^gkr\.logup_pow: pow_bits = (\d+), witness = (\d+), check sample = (\d+)', text, re.M)
emit('logup_pow_sample', [int(m.group(3))] if m and int(m.group(1)) > 0 else [], 1)
emit('alpha', [one(r'^gkr\.alpha_logup = (\[[0-9,]+\])')], 4)
emit('beta', [one(r'^gkr\.beta_logup = (\[[0-9,]+\])')], 4)
emit('xi', one(r'^xi \(len \d+\) = (\[.*\])$'), 4)
emit('batch_lambda', [one(r'^batch\.lambda = (\[[0-9,]+\])')], 4)
emit('batch_mu', [one(r'^batch\.mu = (\[[0-9,]+\])')], 4)
emit('r', one(r'^batch\.r vector \(len \d+\) = (\[.*\])$'), 4)
emit('u', one(r'^stacking\.u vector \(len \d+\) = (\[.*\])$'), 4)
emit('whir_mu', [one(r'^whir\.mu \(batching of stacked columns\) = (\[[0-9,]+\])')], 4)
emit('whir_alphas', one(r'^whir\.alphas \(all folding challenges, len \d+\) = (\[.*\])$'), 4)
z0 = [json.loads(x) for x in re.findall(r'^whir\.round\[\d+\]\.z0 \(OOD point\) = (\[[0-9,]+\])', text, re.M)]
emit('whir_z0', z0, 4)
g = [json.loads(x) for x in re.findall(r'^whir\.round\[\d+\]\.gamma = (\[[0-9,]+\])', text, re.M)]
emit('whir_gamma', g, 4)
qs = []
for x in re.findall(r'^whir\.round\[\d+\]\.query_indices \(.*?\) = (\[[0-9,]*\])', text, re.M):
    qs += json.loads(x)
emit('query_indices', qs, 1)
print('\n'.join(out))
