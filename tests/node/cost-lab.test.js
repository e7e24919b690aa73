'use strict';
// The cost lab's DOM-free parts (web/src/ui/bytes.js, cost-fit.js, cost-sweep.js,
// cost-predict.js, model-shapes.js), and its measurement against the engine.
const test = require('node:test');
const assert = require('node:assert/strict');
const { formatBytes, formatMs } = require('../../web/src/ui/bytes.js');
const { median, logLogFit, tailSlope, fitCaveat, fitCaveats } = require('../../web/src/ui/cost-fit.js');
const { calcMessage, sizeText, CALC_FIELDS } = require('../../web/src/ui/cost-calc.js');
const { createSweep, sweepSizes, measureJob } = require('../../web/src/ui/cost-sweep.js');
const { judgeGrowth, growthAnswer } = require('../../web/src/ui/cost-predict.js');
const { MODEL_SHAPES, modelShape } = require('../../web/src/ui/model-shapes.js');
const chart = require('../../web/src/ui/chart.js');
const { loadAttentionLab } = require('./lab.js');

test('byte counts read in binary units with three significant digits', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1024), '1 KiB');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(1048575), '1 MiB', 'rounding up to 1024 KiB moves to the next unit');
  assert.equal(formatBytes(3 * 2 ** 29), '1.5 GiB');
  assert.equal(formatBytes(524288 * 1024 * 40), '20 GiB');
  assert.equal(formatBytes(123456789), '118 MiB');
  assert.equal(formatBytes(2 ** 53), '8 PiB');
  assert.throws(() => formatBytes(-1), /^Error: formatBytes: bytes is -1; expected a number of bytes \(0 or more\)$/);
  assert.throws(() => formatBytes(NaN), /formatBytes: bytes is NaN/);
  assert.throws(() => formatBytes('12'), /formatBytes: bytes is 12/);
});

test('durations read in ms below a second and in s above', () => {
  assert.equal(formatMs(0.0423), '0.042 ms');
  assert.equal(formatMs(3.14159), '3.14 ms');
  assert.equal(formatMs(250.4), '250 ms');
  assert.equal(formatMs(1250), '1.25 s');
  assert.throws(() => formatMs(Infinity), /formatMs: ms is Infinity/);
});

test('the log-log fit recovers an exact power law and matches Python\'s statistics.linear_regression on noisy data', () => {
  const xs = [64, 128, 256, 512, 1024];
  const exact = logLogFit(xs, xs.map((n) => 3e-6 * n ** 2));
  assert.ok(Math.abs(exact.slope - 2) < 1e-12);
  assert.ok(Math.abs(exact.intercept - Math.log(3e-6)) < 1e-9);
  // Reference: python3 -c "import statistics as s, math; s.linear_regression([math.log(x) for x in xs], [math.log(y) for y in ys])"
  const nx = [64, 128, 256, 512, 1024, 2048];
  const ny = [0.031, 0.094, 0.41, 1.7, 6.2, 26.5];
  const fit = logLogFit(nx, ny);
  assert.ok(Math.abs(fit.slope - 1.967993486318959) < 1e-12, String(fit.slope));
  assert.ok(Math.abs(fit.intercept - -11.777845061817668) < 1e-12);
  const tail = tailSlope(nx, ny, 512);
  assert.ok(Math.abs(tail.slope - 1.9811928541001107) < 1e-12);
  assert.deepEqual([tail.from, tail.to, tail.points], [512, 2048, 3]);
  assert.equal(tailSlope([64, 128, 256], [1, 4, null], 512), null, 'two measured sizes give no slope: any line fits two points');
  const short = tailSlope([64, 128, 256, 512, 1024], [1, 4, 16, 64, 256], 512);
  assert.deepEqual([short.from, short.to, short.points], [256, 1024, 3], 'with fewer than three sizes past `from`, the last three measured are used');
  assert.ok(Math.abs(short.slope - 2) < 1e-12);
  assert.equal(logLogFit([64], [1]), null);
  assert.equal(logLogFit([64, 128], [0, null]), null);
  assert.equal(median([3.5, 1.25, 9, 2.0]), 2.75);
  assert.equal(median([5, 1, 3]), 3);
  assert.throws(() => median([]), /median: values must be a non-empty array of numbers/);
});

test('a sweep doubles n from 64, runs full then tiled per size, and stops a method after a refusal or past its time budget', () => {
  assert.deepEqual(sweepSizes(1024), [64, 128, 256, 512, 1024]);
  assert.throws(() => sweepSizes(1000), /sweepSizes: maxN is 1000; expected a power of two of at least 128/);
  const sweep = createSweep({ maxN: 2048, repeats: 3, budgetMs: 100, minMs: 5, seed: 7 });
  const ran = [];
  const fakeMs = { full: (n) => (n / 256) ** 2, tiled: (n) => (n / 512) ** 2 };
  for (let job = sweep.next(); job; job = sweep.next()) {
    ran.push(`${job.method} ${job.n}`);
    assert.deepEqual([job.d, job.repeats, job.minMs, job.seed, job.warmup], [64, 3, 5, 7 + job.n, job.n === 64]);
    if (job.method === 'full' && job.n === 1024) sweep.record(job, { error: 'attention: out of memory; expected smaller inputs' });
    else sweep.record(job, { times: [fakeMs[job.method](job.n), 0, 1e9], heapBytes: 2 ** 24 });
  }
  // full: 64..512 measured, 1024 refused, 2048 skipped. tiled at 2048 would take 4 x 4 ms = 16 ms: run.
  assert.deepEqual(ran, ['full 64', 'tiled 64', 'full 128', 'tiled 128', 'full 256', 'tiled 256', 'full 512', 'tiled 512', 'full 1024', 'tiled 1024', 'tiled 2048']);
  assert.equal(sweep.done, sweep.total);
  assert.deepEqual(sweep.rows.full.map((r) => r.ms), [0.0625, 0.25, 1, 4, null, null]);
  assert.equal(sweep.rows.full[4].error, 'attention: out of memory; expected smaller inputs');
  assert.equal(sweep.rows.full[5].skipped, 'stopped after n = 1024, which the engine refused');
  assert.ok(Math.abs(sweep.slope('full').slope - 2) < 1e-12);
  assert.deepEqual([sweep.slope('full').from, sweep.slope('full').to], [128, 512]);
  const slow = createSweep({ maxN: 1024, budgetMs: 40 });
  const repeats = [];
  for (let job = slow.next(); job; job = slow.next()) {
    repeats.push(job.repeats);
    slow.record(job, { times: [job.n / 32] });
  }
  assert.deepEqual(repeats, [3, 3, 3, 3, 3, 3, 3, 3]);
  const long = createSweep({ maxN: 512, budgetMs: 10000 });
  const longRepeats = [];
  for (let job = long.next(); job; job = long.next()) {
    longRepeats.push(job.repeats);
    long.record(job, { times: [job.n] });   // n ms: 512 is predicted at 4 x 256 = 1024 ms
  }
  assert.deepEqual(longRepeats, [3, 3, 3, 3, 3, 3, 1, 1], 'sizes predicted past a second are timed once');
  assert.deepEqual(slow.rows.full.map((r) => r.ms), [2, 4, 8, 16, null], 'n = 512 would take about 32 ms (4 x 8): run; 1024 about 64 ms: skipped');
  assert.equal(slow.rows.full[4].skipped, 'not run: one call would take about 64 ms, more than the 40 ms allowed here');
});

test('the prediction is judged against n^2 growth and quotes the reader\'s measured slope', () => {
  const fit = { slope: 1.9733, from: 512, to: 4096 };
  const right = judgeGrowth('4', fit);
  assert.equal(right.close, true);
  assert.match(right.message, /^Right: about 4×\. .* Your browser measured a slope of 1\.97 over n = 512–4,096 \(×3\.9 per doubling\)\.$/);
  // A noisy fit is quoted with its caveat.
  const noisy = judgeGrowth('4', { slope: 2.92, slopeError: 0.6, from: 256, to: 1024 });
  assert.match(noisy.message, /slope of 2\.92 over n = 256–1,024 .* The full attention times scatter around the fitted line \(slope uncertain by about ±0\.6\): read it loosely, or run again\.$/);
  const wrong = judgeGrowth('2', null);
  assert.equal(wrong.close, false);
  assert.match(wrong.message, /^Not quite: about 4× \(slope 2\)\. Your 2× would be linear growth.*Run the measurement/);
  assert.match(judgeGrowth('8', fit).message, /cubic/);
  assert.equal(growthAnswer(null), 'about 4× per doubling of n (log-log slope 2).');
});

test('model presets are whole, consistent shapes (kv heads divide heads) with unique ids', () => {
  assert.deepEqual(MODEL_SHAPES.map((m) => m.id), ['gpt2-small', 'llama-2-7b', 'llama-2-70b', 'mistral-7b']);
  for (const m of MODEL_SHAPES) {
    for (const k of ['layers', 'heads', 'kvHeads', 'dHead', 'context']) assert.ok(Number.isInteger(m[k]) && m[k] > 0, `${m.id} ${k}`);
    assert.equal(m.heads % m.kvHeads, 0, `${m.id}: kv heads divide heads`);
  }
  // d_model = heads x d_head as the cited papers give it.
  assert.deepEqual(MODEL_SHAPES.map((m) => m.heads * m.dHead), [768, 4096, 8192, 4096]);
  assert.equal(modelShape('nope'), undefined);
});

test('a log-y chart puts decades as ticks and leaves out sizes that were not measured', () => {
  assert.deepEqual(chart.decades(0.031, 26.5), [0.01, 0.1, 1, 10, 100]);
  const g = chart.lineLayout({ xs: [64, 128, 256], yLog: true, yMin: 0.1, yMax: 10, series: [{ ys: [0.1, 1, null] }] });
  assert.deepEqual(g.yTicks.map((t) => t.value), [0.1, 1, 10]);
  assert.deepEqual([1e-4, 0.01, 1000, 1e4, 1e12].map(chart.decadeLabel), ['10\u207b\u2074', '0.01', '1000', '10\u2074', '10\u00b9\u00b2']);
  assert.equal(g.series[0].length, 2);
  assert.equal(g.series[0][0][1], g.plot.bottom);
  assert.ok(Math.abs(g.series[0][1][1] - (g.plot.top + g.plot.bottom) / 2) < 1e-9, '1 sits halfway between 0.1 and 10');
});

test('measureJob times the engine\'s kernels: the tiled figures are the engine\'s cost figures, and a size full attention cannot hold is its named error', async () => {
  const lab = await loadAttentionLab();
  const tiled = measureJob(lab, { method: 'tiled', n: 256, d: 64, repeats: 3, minMs: 1, seed: 5, warmup: true });
  assert.equal(tiled.times.length, 3);
  assert.ok(tiled.times.every((t) => t > 0 && Number.isFinite(t)));
  assert.deepEqual(tiled.figures, lab.costFigures({ m: 256, n: 256, dk: 64 }).tiled);
  assert.equal(tiled.heapBytes, lab.memory().heapSize);
  const full = measureJob(lab, { method: 'full', n: 128, d: 64, repeats: 1, minMs: 1, seed: 5 });
  assert.equal(full.figures, null);
  assert.equal(full.times.length, 1);
  assert.throws(() => measureJob(lab, { method: 'full', n: 32768, d: 64, repeats: 1, minMs: 1, seed: 5 }), /^Error: attention: /);
  assert.equal(lab.attention([[1, 0]], [[1, 0]], [[2]]).output.toArray()[0][0], 2, 'the engine still works afterwards');
});

test('a fitted slope is caveated when its points scatter or when it is below 1.5, and not otherwise', () => {
  const xs = [256, 512, 1024, 2048];
  // Exact n^2: no caveat. slopeError is 0 for points on the line.
  const clean = tailSlope(xs, xs.map((n) => n * n), 256);
  assert.equal(clean.slopeError, 0);
  assert.equal(fitCaveat(clean, 'full attention'), '');
  // Reference: Python's statistics.linear_regression on the logs, and the slope's standard
  // error sqrt(rss / (k - 2) / sxx) computed from its residuals in plain Python.
  const noisy = tailSlope(xs, [1, 6, 10, 80], 256);
  assert.ok(Math.abs(noisy.slope - 1.9702749878828292) < 1e-9, String(noisy.slope));
  assert.ok(Math.abs(noisy.slopeError - 0.2980088847708977) < 1e-9, String(noisy.slopeError));
  assert.equal(fitCaveat(noisy, 'full attention'), 'The full attention times scatter around the fitted line (slope uncertain by about ±0.3): read it loosely, or run again.');
  // Slope 0.38 (statistics.linear_regression, as above): one sentence names every slope below 1.5.
  const flat = tailSlope([256, 512, 1024], [2, 2.6, 3.4], 512);
  assert.equal(fitCaveats([{ fit: clean, name: 'full attention' }, { fit: flat, name: 'tiled' }]),
    'A slope below 1.5 (tiled 0.38) is not linear growth: the work is n² d multiply-adds, and at these sizes fixed costs per call still hide part of it.');
  assert.match(fitCaveats([{ fit: flat, name: 'full' }, { fit: flat, name: 'tiled' }]), /^A slope below 1\.5 \(full 0\.38, tiled 0\.38\) is not/);
  assert.equal(fitCaveat(null, 'x'), '');
  // Time that falls as n doubles is noise, not fixed costs: a scattered low slope gets the
  // scatter sentence only.
  const fell = tailSlope([256, 512, 1024], [10, 34, 20.9], 256);
  assert.ok(fell.slope < 1.5 && fell.slopeError > 0.25, JSON.stringify(fell));
  assert.match(fitCaveat(fell, 'full attention'), /^The full attention times scatter around the fitted line \(slope uncertain by about ±\d\.\d\): read it loosely, or run again\.$/);
});

test('calculator sizes show as typed and engine refusals read with the field names on screen', async () => {
  assert.equal(sizeText(4096), '4,096');
  assert.equal(sizeText(1.5), '1.5', 'a value the engine refuses is not rounded');
  assert.deepEqual(CALC_FIELDS.map((f) => f[1]), ['batch', 'heads', 'tokens n', 'layers', 'kv heads', 'd_head', 'window (0: none)']);
  const lab = await loadAttentionLab();
  const message = (fn) => { try { fn(); } catch (err) { return calcMessage(err); } throw new Error('expected a refusal'); };
  assert.equal(message(() => lab.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128, tokens: 1.5 })), 'tokens n = 1.5: enter a whole number of 1 or more.');
  assert.equal(message(() => lab.attentionMatrixBytes({ n: 0 })), 'tokens n = 0: enter a whole number of 1 or more.');
  assert.equal(message(() => lab.kvCacheBytes({ layers: 32, kvHeads: 5, heads: 32, dHead: 128 })),
    'kv heads = 5 does not divide heads = 32: each kv head serves a whole group of query heads, so kv heads must divide heads (heads itself, or 1 for multi-query).');
  assert.equal(message(() => lab.kvCacheBytes({ layers: 1e3, kvHeads: 1e3, dHead: 1e3, dtype: 'float64', tokens: 1e6, batch: 1e3 })),
    'Too large to count exactly (past 2^53, about 9 × 10^15): use smaller numbers.');
  assert.equal(message(() => lab.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 1e-3 })), 'd_head = 0.001: enter a whole number of 1 or more.');
});

test('the traffic table\'s fast memory drives the engine\'s blocks, and its sentences quote the engine: ratio, where the 64 comes from, block and exact work', async () => {
  const { FAST_MEMORY_CHOICES, fastMemoryFloats, fastMemoryLabel, trafficSentences } = require('../../web/src/ui/cost-traffic.js');
  const lab = await loadAttentionLab();
  const n = 2048, d = 64, window = 256;
  const defaults = lab.costFigures({ m: n, n, dk: d });
  const all = FAST_MEMORY_CHOICES.map((c) => ({ c, f: lab.costFigures({ m: n, n, dk: d, fastMemory: fastMemoryFloats(c.kib) }) }));
  // One choice gives the engine's own 64 x 64 blocks, and is labelled so.
  const own = all.filter(({ f }) => f.blockQ === defaults.blockQ && f.blockK === defaults.blockK);
  assert.deepEqual(own.map(({ c }) => c.kib), [64]);
  assert.equal(fastMemoryLabel(own[0].c, own[0].f, defaults), '64 KiB (this engine\u2019s blocks)');
  assert.equal(fastMemoryLabel(FAST_MEMORY_CHOICES[2], all[2].f, defaults), '192 KiB (an A100 multiprocessor)');
  // More fast memory, larger query blocks, less tiled traffic: the ratio grows with M.
  for (let i = 1; i < all.length; i++) assert.ok(all[i].f.trafficRatio > all[i - 1].f.trafficRatio, `M = ${all[i].c.kib} KiB`);
  const windowed = lab.costFigures({ m: n, n, dk: d, causal: true, window, fastMemory: fastMemoryFloats(64) });
  const say = trafficSentences({ c: all[1].f, defaults, windowed, d, window, kib: 64, ownKib: 64 });
  assert.match(say.ratio, /full attention reads and writes 2\.0 times as many floats as tiled attention/);
  assert.match(say.ratio, /\u0398\(N d \+ N\u00b2\).*\u0398\(N\u00b2 d\u00b2 \/ M\)/);
  assert.match(say.ratio, /Dao et al\. 2022/);
  assert.match(say.origin, /64 \u00d7 64 blocks come from: they are a fixed default .* the blocks this rule gives for M = 16,384 floats \(64 KiB\)\.$/);
  // The window row counts whole blocks; the sentence gives the exact work beside it.
  assert.match(say.window, /on exactly those keys the work is 62,930,944 multiply-adds\. .* so its row counts 78,643,200\.$/);
  assert.equal(windowed.visibleMultiplyAdds, 62930944);
  assert.equal(windowed.tiled.multiplyAdds, 78643200);
});

test('costFigures takes fastMemory from JavaScript and refuses it with blocks, below d or as text', async () => {
  const lab = await loadAttentionLab();
  const c = lab.costFigures({ m: 4096, n: 4096, dk: 64, fastMemory: 65536 });
  assert.deepEqual([c.blockQ, c.blockK], [256, 64]);
  assert.throws(() => lab.costFigures({ m: 64, n: 64, dk: 64, fastMemory: 32 }), /^Error: costFigures: fastMemory = 32 floats; expected a whole number from d = 64/);
  assert.throws(() => lab.costFigures({ m: 64, n: 64, dk: 64, fastMemory: 4096, blockK: 8 }), /^Error: costFigures: fastMemory picks the blocks; expected fastMemory or blockQ and blockK, not both$/);
  assert.throws(() => lab.costFigures({ m: 64, n: 64, dk: 64, fastMemory: '4096' }), /^Error: costFigures: fastMemory is a string; expected a number$/);
  assert.equal(lab.costFigures({ m: 64, n: 64, dk: 64 }).blockQ, 64, 'the engine is usable after the errors');
});

test('a linear x axis (xMax) draws std = sqrt(d_k) against sqrt(d_k) as a straight line through the origin; log x bends it upward', () => {
  const dks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
  const roots = dks.map(Math.sqrt);
  const slopes = (pts) => pts.slice(1).map(([x, y], i) => (y - pts[i][1]) / (x - pts[i][0]));
  const linear = chart.lineLayout({ xs: dks, xPlot: roots, xMax: 25, yMax: 25, series: [{ ys: roots }] });
  const s = slopes(linear.series[0]);
  for (const k of s) assert.ok(Math.abs(k - s[0]) < 1e-9, `one slope all along: ${s}`);
  const { left, bottom } = linear.plot;
  const [x0, y0] = linear.series[0][0];
  assert.ok(Math.abs((y0 - bottom) / (x0 - left) - s[0]) < 1e-9, 'and it passes through the origin');
  assert.deepEqual(linear.xTicks.map((t) => t.value), [0, 5, 10, 15, 20, 25]);
  // The same points on the old log-2 x axis: each step steeper than the last, like an exponential.
  const logx = slopes(chart.lineLayout({ xs: dks, yMax: 25, series: [{ ys: roots }] }).series[0]);
  for (let i = 1; i < logx.length; i++) assert.ok(Math.abs(logx[i]) > Math.abs(logx[i - 1]), `log x steepens: ${logx}`);
});
