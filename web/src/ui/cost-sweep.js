'use strict';
// The cost lab's sweep: which runs to make (full and tiled attention at n = 64, 128, ...),
// when to stop a method (the engine refused the size, or the next size would take too long
// for where it runs), and the measured rows. DOM-free; it runs on the page's thread and
// hands each job to a runner (a Web Worker, or the page itself in small tasks).

const { median, tailSlope } = require('./cost-fit.js');
const { formatMs } = require('./bytes.js');

const METHODS = ['full', 'tiled'];
const FIRST_N = 64;
/** Slopes are fitted from here up: below it, fixed per-call costs flatten the curve. */
const FIT_FROM = 512;

/** 64, 128, ... up to maxN (a power of two of at least 128). */
function sweepSizes(maxN) {
  if (!Number.isInteger(maxN) || maxN < 2 * FIRST_N || (maxN & (maxN - 1)) !== 0) {
    throw new Error(`sweepSizes: maxN is ${maxN}; expected a power of two of at least ${2 * FIRST_N}`);
  }
  const out = [];
  for (let n = FIRST_N; n <= maxN; n *= 2) out.push(n);
  return out;
}

/**
 * Times one attention call at size n, on a lab object (the engine's JS API). Written to run
 * unchanged inside the cost lab's worker, whose source is this function's text: it may use
 * only its arguments and globals (performance).
 * @param job { method: 'full' | 'tiled', n, d, repeats, minMs, seed, warmup }: each repeat
 *   calls the kernel until minMs have passed (timer resolution) and keeps the time per call;
 *   warmup makes one untimed call first
 * @returns { method, n, times: ms per call for each repeat, figures (tiled: the kernel's own),
 *   heapBytes: the engine's memory after the runs }
 */
function measureJob(lab, job) {
  const shape = [job.n, job.d];
  const Q = lab.randomNormal({ shape, seed: job.seed });
  const K = lab.randomNormal({ shape, seed: job.seed + 1 });
  const V = lab.randomNormal({ shape, seed: job.seed + 2 });
  const tiled = job.method === 'tiled';
  let figures = null;
  const call = () => (tiled ? lab.tiledAttention(Q, K, V).figures : lab.attention(Q, K, V, { stages: ['output'] }) && null);
  // The first call of a fresh engine pays for compiling and growing memory: not timed.
  if (job.warmup) call();
  const times = [];
  for (let r = 0; r < job.repeats; r++) {
    let calls = 0;
    const t0 = performance.now();
    let t = t0;
    do {
      figures = call();
      calls += 1;
      t = performance.now();
    } while (t - t0 < job.minMs);
    times.push((t - t0) / calls);
  }
  return { method: job.method, n: job.n, times, figures, heapBytes: lab.memory().heapSize };
}

/**
 * A sweep's plan and results.
 * @param opts { maxN, d = 64, repeats = 3 (1 for a size predicted past a second), minMs = 20,
 *   budgetMs: the longest single call to start (the next size is predicted at 4x the last,
 *   attention being quadratic), seed }
 */
function createSweep(opts) {
  const sizes = sweepSizes(opts.maxN);
  const d = opts.d || 64;
  const repeats = opts.repeats || 3;
  const rows = {};
  for (const m of METHODS) rows[m] = sizes.map((n) => ({ n, ms: null, times: [], heapBytes: null, figures: null, error: null, skipped: null }));
  let index = 0;   // next job: index / 2 is the size, index % 2 the method

  const sweep = {
    sizes,
    d,
    rows,
    total: sizes.length * METHODS.length,
    /** How many jobs have been measured, refused or skipped. */
    get done() { return index; },
    /** The next job to run, or null when the sweep is complete. */
    next() {
      while (index < sweep.total) {
        const method = METHODS[index % 2];
        const row = rows[method][index >> 1];
        const stop = stopReason(method, index >> 1);
        if (!stop) {
          // A size predicted past a second is timed once: its median would cost the reader minutes.
          const slow = predictedMs(method, index >> 1) > 1000;
          return { method, n: row.n, d, repeats: slow ? 1 : repeats, minMs: opts.minMs === undefined ? 20 : opts.minMs, seed: (opts.seed || 1) + row.n, warmup: index < METHODS.length };
        }
        row.skipped = stop;
        index += 1;
      }
      return null;
    },
    /** Records a job's result: { times, figures, heapBytes } or { error: message }. */
    record(job, result) {
      const row = rows[job.method][sizes.indexOf(job.n)];
      if (result.error) row.error = result.error;
      else Object.assign(row, { times: result.times, ms: median(result.times), figures: result.figures || null, heapBytes: result.heapBytes });
      index += 1;
    },
    /** The fitted log-log slope of a method's times (null with fewer than two sizes). */
    slope(method) {
      const r = rows[method];
      return tailSlope(r.map((x) => x.n), r.map((x) => x.ms), FIT_FROM);
    },
  };

  /** 4x the last measured time of this method (attention is at most quadratic in n), or 0. */
  function predictedMs(method, at) {
    const before = rows[method].slice(0, at).reverse().find((r) => r.ms !== null);
    return before ? before.ms * 4 : 0;
  }

  function stopReason(method, at) {
    const before = rows[method].slice(0, at).reverse().find((r) => r.error || r.ms !== null || r.skipped);
    if (!before) return null;
    if (before.error || before.skipped) return before.skipped || `stopped after n = ${before.n}, which the engine refused`;
    if (before.ms * 4 > opts.budgetMs) return `not run: one call would take about ${formatMs(before.ms * 4)}, more than the ${formatMs(opts.budgetMs)} allowed here`;
    return null;
  }

  return sweep;
}

module.exports = { createSweep, sweepSizes, measureJob, METHODS, FIT_FROM };
