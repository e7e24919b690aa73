'use strict';
// The cost rows of npm run bench (issue 8): tiled vs full attention at n = 1024, d = 64;
// tiled attention at n = 8192 (full attention refuses it); per-token decode cost with and
// without the KV cache over n = 256..4096 with the fitted log-log slope of each; attention at
// n = 1024, d = 64 with RoPE and ALiBi beside the same call without.
// A benchmark, not a test: it prints figures and never fails on a slow machine.

const { median, randomData } = require('./bench-common.js');
const { logLogFit } = require('../web/src/ui/cost-fit.js');

const D = 64;

/** Milliseconds of `samples` runs of fn, after `warm` runs. */
function samplesMs(fn, samples, warm = 2) {
  for (let i = 0; i < warm; i++) fn();
  const ms = [];
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return ms;
}

const timeMs = (fn, samples, warm) => median(samplesMs(fn, samples, warm));
// A shared machine only ever adds time: the fastest run is the steadiest estimate of a cost.
const bestMs = (fn, samples, warm) => Math.min(...samplesMs(fn, samples, warm));

/** Least-squares slope of log(y) against log(x): the cost lab's own fit (web/src/ui/cost-fit.js). */
const logLogSlope = (xs, ys) => logLogFit(xs, ys).slope;

const tensor = (shape, seed) => ({ shape, data: randomData(shape.reduce((a, b) => a * b, 1), seed) });

function tiledVsFull(lab) {
  const n = 1024;
  const Q = tensor([n, D], 1), K = tensor([n, D], 2), V = tensor([n, D], 3);
  const diff = lab.maxAbsDiff(lab.tiledAttention(Q, K, V).output, lab.attention(Q, K, V, { stages: ['output'] }).output);
  console.log(`\ntiled vs full attention, n = ${n}, d = ${D}, median of 15, interleaved (max |tiled - full| = ${diff.toExponential(1)})`);
  for (const causal of [false, true]) {
    const full = [], tiled = [];
    for (let round = 0; round < 3; round++) {
      full.push(timeMs(() => lab.attention(Q, K, V, { causal, stages: ['output'] }), 5));
      tiled.push(timeMs(() => lab.tiledAttention(Q, K, V, { causal }), 5));
    }
    const f = median(full), t = median(tiled);
    const fig = lab.costFigures({ m: n, n, dk: D, causal });
    console.log(`  ${causal ? 'causal' : 'no mask'}: full ${f.toFixed(2)} ms, tiled (64 x 64 blocks) ${t.toFixed(2)} ms, ` +
      `tiled/full ${(t / f).toFixed(2)} (target <= 1.3); extra floats full ${fig.full.peakExtraFloats}, tiled ${fig.tiled.peakExtraFloats}; ` +
      `floats read+written full ${fig.full.floatsRead + fig.full.floatsWritten}, tiled ${fig.tiled.floatsRead + fig.tiled.floatsWritten}`);
  }
}

function bigN(lab) {
  const n = 8192;
  const Q = tensor([n, D], 4), K = tensor([n, D], 5), V = tensor([n, D], 6);
  const before = lab.memory().heapSize;
  const t0 = process.hrtime.bigint();
  const r = lab.tiledAttention(Q, K, V, { causal: true });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let refusal = 'ran';
  try {
    lab.attention(Q, K, V, { causal: true, stages: ['output'] });
  } catch (err) {
    refusal = `refused: "${err.message}"`;
  }
  console.log(`\ntiled attention at n = ${n}, d = ${D}, causal: ${ms.toFixed(0)} ms, peak extra floats ${r.figures.peakExtraFloats} ` +
    `(full would hold ${lab.costFigures({ m: n, n, dk: D }).full.peakExtraFloats}), blocks computed ${r.figures.blocksComputed}, ` +
    `skipped ${r.figures.blocksSkipped}; wasm memory ${(before / 2 ** 20).toFixed(0)} -> ${(lab.memory().heapSize / 2 ** 20).toFixed(0)} MiB. ` +
    `Full attention at n = ${n}: ${refusal}`);
}

function decode(lab) {
  const heads = 8, sizes = [256, 512, 1024, 2048, 4096], max = sizes[sizes.length - 1];
  const cache = lab.createKVCache({ heads, dHead: D, maxLength: max + 16 });
  const withCache = [], without = [];
  try {
    const token = (seed) => tensor([heads, D], seed);
    const K = tensor([heads, max, D], 7), V = tensor([heads, max, D], 8), Q = tensor([heads, max, D], 9);
    // V8 first runs wasm with its baseline compiler and tiers hot functions up later: warm the
    // cache's kernels on a scratch cache first, so the smallest n is not timed on baseline code.
    const scratch = lab.createKVCache({ heads, dHead: D, maxLength: 64 });
    try {
      for (let i = 0; i < 64; i++) scratch.append(token(i), token(i + 64));
      const q0 = token(500);
      for (let i = 0; i < 2000; i++) scratch.attend(q0);
    } finally {
      scratch.dispose();
    }
    for (const n of sizes) {
      while (cache.length < n - 1) cache.append(token(cache.length * 2 + 10), token(cache.length * 2 + 11));
      // Decode steps at lengths n .. n + 14: append the new token, attend its query over the cache.
      const k = token(1e6 + n), v = token(2e6 + n), q = token(3e6 + n);
      const step = [];
      for (let s = 0; s < 5; s++) cache.attend(q);  // warm-up: the first calls run colder code
      for (let s = 0; s < 15; s++) {
        const t0 = process.hrtime.bigint();
        cache.append(k, v);
        cache.attend(q);
        step.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      withCache.push(Math.min(...step));
      // Without a cache: causal attention over the whole prefix of n tokens, every head.
      const slice = (t) => ({ shape: [heads, n, D], data: sliceHeads(t.data, heads, max, n) });
      const q3 = slice(Q), k3 = slice(K), v3 = slice(V);
      without.push(bestMs(() => lab.tiledAttention(q3, k3, v3, { causal: true }), n >= 2048 ? 3 : 5, 1));
    }
  } finally {
    cache.dispose();
  }
  const a = logLogSlope(sizes, withCache), b = logLogSlope(sizes, without);
  console.log(`\nper-token decode cost, ${heads} heads, d_head = ${D} (fastest of 15 steps with the cache, of 3-5 runs without, in ms)`);
  console.log(`  n:              ${sizes.map((n) => String(n).padStart(8)).join(' ')}`);
  console.log(`  with cache:     ${withCache.map((x) => x.toFixed(3).padStart(8)).join(' ')}   log-log slope ${a.toFixed(2)} (target 0.9-1.1)`);
  console.log(`  without cache:  ${without.map((x) => x.toFixed(1).padStart(8)).join(' ')}   log-log slope ${b.toFixed(2)} (target 1.8-2.2)`);
  console.log('  (with: append + attend of one token; without: tiledAttention, causal, over the n-token prefix)');
}

/** [heads, n, d] rows out of [heads, max, d] data. */
function sliceHeads(data, heads, max, n) {
  const out = new Float32Array(heads * n * D);
  for (let h = 0; h < heads; h++) out.set(data.subarray(h * max * D, (h * max + n) * D), h * n * D);
  return out;
}

/** CPU milliseconds per call of fn (user + system, which waiting for a core does not inflate), over `runs` calls. */
function cpuMs(fn, runs) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) fn();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000 / runs;
}

// Positions (issue 28): attention at n = 1024, d = 64 with RoPE, ALiBi and both, against the
// same call without, in interleaved rounds of one process (target: at most 1.10).
function positions(lab) {
  const n = 1024;
  const Q = tensor([n, D], 7), K = tensor([n, D], 8), V = tensor([n, D], 9);
  const variants = { plain: {}, rope: { rope: {} }, alibi: { alibi: true }, both: { rope: {}, alibi: true } };
  console.log(`
attention with positions, n = ${n}, d = ${D}, causal, CPU ms per call (median of 7 rounds of 3 calls, interleaved)`);
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (const o of Object.values(variants)) lab.attention(Q, K, V, { causal: true, stages: ['output'], ...o });  // warm
  for (let round = 0; round < 7; round++) {
    for (const [k, o] of Object.entries(variants)) times[k].push(cpuMs(() => lab.attention(Q, K, V, { causal: true, stages: ['output'], ...o }), 3));
  }
  const plain = median(times.plain);
  console.log(`  plain ${plain.toFixed(2)} ms; ` + ['rope', 'alibi', 'both'].map((k) => {
    const t = median(times[k]);
    return `${k} ${t.toFixed(2)} ms (x${(t / plain).toFixed(3)})`;
  }).join(', ') + ' (target x1.10 or less)');
}

const PARTS = { tiled: tiledVsFull, big: bigN, decode, positions };

/** The cost rows; `only` (names from PARTS) picks some, e.g. node scripts/bench-cost.js decode. */
function costRows(lab, only = Object.keys(PARTS)) {
  for (const name of only) PARTS[name](lab);
}

module.exports = { costRows, logLogSlope };

if (require.main === module) {
  const only = process.argv.slice(2);
  for (const name of only) if (!PARTS[name]) throw new Error(`bench-cost: unknown part ${name}; expected ${Object.keys(PARTS).join(', ')}`);
  require('../index.js').loadAttentionLab().then((lab) => costRows(lab, only.length ? only : undefined)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
