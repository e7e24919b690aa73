#!/usr/bin/env node
'use strict';
// The cost of one lab.attention call through the public API, beside a plain JavaScript
// loop implementation in the same process (it allocates its results per call, as the API
// does). Rows: n = 5 at d = 4, 16, 64 (per-call overhead), then n = 64, 256, 1024 at d = 64
// with every stage and with only weights + output (copy-out cost). Then the shipped model's
// tokenizer on 1e5 and 1e6 characters (benchTokenizer).
//
//   node scripts/bench-api.js            (after a build)
//   const { benchApi } = require('./bench-api.js'); benchApi(lab) -> rows, for scripts/bench.js
//
// A benchmark, not a test: it prints medians and ratios and never fails.

const { median, randomData } = require('./bench-common.js');
const path = require('path');

/** Calls of fn that take about `ms` milliseconds (after 100 ms of warm-up). */
function calibrate(fn, ms) {
  const warmUntil = process.hrtime.bigint() + 100000000n;
  let calls = 0;
  while (process.hrtime.bigint() < warmUntil) { fn(); calls++; }
  return Math.max(1, Math.round(calls * ms / 100));
}

function sample(fn, inner) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < inner; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1e3 / inner;
}

/**
 * Median microseconds per call of each function, sampled in turn (a, b, c, a, b, c, ...)
 * so a busy machine slows them alike, and the median of the per-round ratios to the first.
 */
function race(fns, rounds = 21) {
  const inner = fns.map((f) => calibrate(f, 3));
  const times = fns.map(() => []);
  for (let r = 0; r < rounds; r++) fns.forEach((f, i) => times[i].push(sample(f, inner[i])));
  return {
    us: times.map(median),
    ratio: times.map((t) => median(t.map((x, r) => x / times[0][r]))),
  };
}

/** Plain JavaScript attention on Float32Array: scores, weights, output, allocated per call. */
function jsAttention(q, k, v, n, d) {
  const scale = 1 / Math.sqrt(d);
  const weights = new Float32Array(n * n);
  const output = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    let best = -Infinity;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += q[i * d + c] * k[j * d + c];
      s *= scale;
      weights[i * n + j] = s;
      if (s > best) best = s;
    }
    let total = 0;
    for (let j = 0; j < n; j++) total += (weights[i * n + j] = Math.exp(weights[i * n + j] - best));
    for (let j = 0; j < n; j++) weights[i * n + j] /= total;
    for (let j = 0; j < n; j++) {
      const w = weights[i * n + j];
      for (let c = 0; c < d; c++) output[i * d + c] += w * v[j * d + c];
    }
  }
  return { weights, output };
}

/** Rows of { n, d, stages, apiUs, jsUs, ratio } for a loaded lab. */
function benchApi(lab, cases) {
  const rows = [];
  const list = cases || [
    [5, 4], [5, 16], [5, 64], [64, 64], [256, 64], [1024, 64],
  ];
  for (const [n, d] of list) {
    const q = randomData(n * d, 1), k = randomData(n * d, 2), v = randomData(n * d, 3);
    const Q = { shape: [n, d], data: q }, K = { shape: [n, d], data: k }, V = { shape: [n, d], data: v };
    const only = { stages: ['weights', 'output'] };
    const r = race([() => jsAttention(q, k, v, n, d), () => lab.attention(Q, K, V), () => lab.attention(Q, K, V, only)], n >= 1024 ? 5 : 21);
    rows.push({ n, d, stages: 'all five', apiUs: r.us[1], jsUs: r.us[0], ratio: r.ratio[1] });
    rows.push({ n, d, stages: 'weights, output', apiUs: r.us[2], jsUs: r.us[0], ratio: r.ratio[2] });
  }
  return rows;
}

async function main() {
  const { loadAttentionLab } = require(path.resolve(__dirname, '..', 'index.js'));
  const lab = await loadAttentionLab();
  console.log('lab.attention with { shape, data: Float32Array } inputs vs a plain JS loop (same process, median us per call)');
  console.log('   n    d  stages            API us    JS us   API/JS (median of interleaved rounds)');
  for (const r of benchApi(lab)) {
    console.log(`${String(r.n).padStart(4)} ${String(r.d).padStart(4)}  ${r.stages.padEnd(16)} ${r.apiUs.toFixed(2).padStart(8)} ${r.jsUs.toFixed(2).padStart(8)} ${r.ratio.toFixed(2).padStart(8)}`);
  }
  console.log('\nthe shipped model\'s tokenizer on long text (ms of CPU, one run each)');
  console.log('input                               characters     ms');
  for (const r of benchTokenizer(lab)) console.log(`${r.what.padEnd(36)}${String(r.chars).padStart(10)} ${r.ms.toFixed(0).padStart(6)}`);
}

/**
 * The shipped model's tokenizer on long input, by CPU time (process.cpuUsage, which waiting
 * for a core does not inflate): one word of n letters, n words of prose, and Model.attention
 * with { truncate: true } on the word (the last maxTokens tokens kept). Rows { what, chars, ms }.
 */
function benchTokenizer(lab, sizes = [1e5, 1e6]) {
  const { createTokenizer } = require('../web/src/api/tokenizer.js');
  const model = lab.loadModel();
  const vocabulary = require('../web/model/attention-lab-model.js').tokenizer;
  const cpu = (fn) => {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  const letters = (n) => {
    let x = 7, out = '';
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      out += 'etaoinshrdlucmfwypvbgkqjxz'[(x >>> 8) % 26];
    }
    return out;
  };
  const rows = [];
  for (const n of sizes) {
    const word = letters(n);
    const prose = 'the cat sat on the mat and the dog ran after it. '.repeat(Math.ceil(n / 50)).slice(0, n);
    rows.push({ what: 'one word, Tokenizer.ids', chars: n, ms: cpu(() => createTokenizer(vocabulary).ids(word)) });
    rows.push({ what: 'prose, Tokenizer.ids', chars: n, ms: cpu(() => createTokenizer(vocabulary).ids(prose)) });
    model.tokenizer._cache.clear();
    rows.push({ what: 'one word, Model.attention truncate', chars: n, ms: cpu(() => model.attention(word, { truncate: true })) });
  }
  model.dispose();
  return rows;
}

module.exports = { benchApi, benchTokenizer, jsAttention };
if (require.main === module) main();
