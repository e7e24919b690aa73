'use strict';
// The public JavaScript API over the engine's embind module. Same code in node and browsers:
// it only checks argument types, converts, calls the engine, and turns { error } into Error.

const { Tensor, fromEngine, toInput, describe } = require('./tensor.js');
const { checkKeys, boolOption, numberOption, numberArg, wholeOption, attentionOptions, ATTENTION_OPTIONS } = require('./options.js');
const { Workspace } = require('./workspace.js');
const { DotProductStats } = require('./dot-product-stats.js');

function unwrap(result) {
  if (result && typeof result.error === 'string') throw new Error(result.error);
  return result;
}

function attentionResult(raw) {
  return {
    scores: fromEngine(raw.scores),
    scaled: fromEngine(raw.scaled),
    masked: fromEngine(raw.masked),
    weights: fromEngine(raw.weights),
    output: fromEngine(raw.output),
    scale: raw.scale,
    fullyMaskedRows: raw.fullyMaskedRows,
  };
}

function exampleResult(raw) {
  const out = { tokens: raw.tokens };
  for (const key of ['Q', 'K', 'V', 'X', 'Wq', 'Wk', 'Wv']) if (raw[key]) out[key] = fromEngine(raw[key]);
  return out;
}

/**
 * Builds the API object around a loaded engine module.
 * @param core the instantiated embind module (createAttentionLabCore())
 */
function createLab(core) {
  return {
    /**
     * Scaled dot-product attention with every stage kept.
     * @param Q queries [..., m, d_k]; K keys [..., n, d_k]; V values [..., n, d_v]
     * @param options { causal, validLens, mask, scale }
     * @returns { scores, scaled, masked, weights, output, scale, fullyMaskedRows }
     */
    attention(Q, K, V, options) {
      const fn = 'attention';
      const opts = attentionOptions(fn, options);
      return attentionResult(unwrap(core.attention(toInput(Q, fn, 'Q'), toInput(K, fn, 'K'), toInput(V, fn, 'V'), opts)));
    },

    /** Numerically safe softmax along options.axis (default -1, the last axis). */
    softmax(x, options) {
      const fn = 'softmax';
      const o = checkKeys(fn, options, ['axis']);
      const axis = o.axis === undefined ? -1 : o.axis;
      if (!Number.isInteger(axis)) throw new Error(`${fn}: axis is ${describe(axis)}; expected a whole number`);
      if (Math.abs(axis) > 2 ** 30) throw new Error(`${fn}: axis = ${axis} is out of range`);
      return fromEngine(unwrap(core.softmax(toInput(x, fn, 'x'), axis)));
    },

    /**
     * Multi-head self-attention of X [n, d_model].
     * @param spec { X, Wq, Wk, Wv, Wo?, heads, causal?, method?: 'loop' | 'batched',
     *   forgetMergeTranspose?, scale? }
     * @returns { q, k, v, scores, weights, headOutputs, concat, output, scale }
     */
    multiHeadAttention(spec) {
      const fn = 'multiHeadAttention';
      if (!spec || typeof spec !== 'object') throw new Error(`${fn}: expected an object { X, Wq, Wk, Wv, Wo, heads }; got ${describe(spec)}`);
      const o = checkKeys(fn, spec, ['X', 'Wq', 'Wk', 'Wv', 'Wo', 'heads', 'causal', 'method', 'forgetMergeTranspose', 'scale']);
      const method = o.method === undefined ? 'batched' : o.method;
      if (method !== 'loop' && method !== 'batched') {
        throw new Error(`${fn}: method = ${JSON.stringify(method)}; expected 'loop' or 'batched'`);
      }
      const input = {
        X: toInput(o.X, fn, 'X'),
        Wq: toInput(o.Wq, fn, 'Wq'),
        Wk: toInput(o.Wk, fn, 'Wk'),
        Wv: toInput(o.Wv, fn, 'Wv'),
        heads: wholeOption(fn, o, 'heads', 1, 1),
        causal: boolOption(fn, o, 'causal'),
        method,
        forgetMergeTranspose: boolOption(fn, o, 'forgetMergeTranspose'),
      };
      if (o.Wo !== undefined && o.Wo !== null) input.Wo = toInput(o.Wo, fn, 'Wo');
      const scale = numberOption(fn, o, 'scale');
      if (scale !== undefined) input.scale = scale;
      const raw = unwrap(core.multiHeadAttention(input));
      const out = { scale: raw.scale };
      for (const key of ['q', 'k', 'v', 'scores', 'weights', 'headOutputs', 'concat', 'output']) out[key] = fromEngine(raw[key]);
      return out;
    },

    /**
     * The sqrt(d_k) experiment: statistics of q.k for standard-normal q, k.
     * @param spec { dk, samples = 10000, seed = 1 }
     * @returns { mean, variance, std }
     */
    dotProductStats(spec) {
      const fn = 'dotProductStats';
      if (!spec || typeof spec !== 'object') throw new Error(`${fn}: expected an object { dk, samples, seed }; got ${describe(spec)}`);
      const o = checkKeys(fn, spec, ['dk', 'samples', 'seed']);
      return unwrap(core.dotProductStats(numberArg(fn, o, 'dk'), numberArg(fn, o, 'samples', 10000), numberArg(fn, o, 'seed', 1)));
    },

    /**
     * The same experiment in steps: { add(count), samples, result(), dispose() }.
     * @param spec { dk, seed = 1 }
     */
    createDotProductStats(spec) {
      return new DotProductStats(core, spec);
    },

    /**
     * Every arithmetic step behind one query row of 2-D attention.
     * @returns { row, scale, terms [n, d_k], scores, scaled, masked, rowMax, expRaw, expShifted,
     *   sumRaw, sumShifted, naiveWeights (expRaw / sumRaw, NaN on overflow), weights,
     *   weightedValues [n, d_v], output, fullyMasked }
     */
    explainRow(Q, K, V, row, options) {
      const fn = 'explainRow';
      if (typeof row !== 'number') throw new Error(`${fn}: row is ${describe(row)}; expected a whole number`);
      const raw = unwrap(core.explainRow(toInput(Q, fn, 'Q'), toInput(K, fn, 'K'), toInput(V, fn, 'V'), attentionOptions(fn, options), row));
      for (const key of ['terms', 'scores', 'scaled', 'masked', 'expRaw', 'expShifted', 'naiveWeights', 'weights', 'weightedValues', 'output']) {
        raw[key] = fromEngine(raw[key]);
      }
      return raw;
    },

    /** A Tensor from nested arrays or { shape, data } (a copy; checks shape, no arithmetic). */
    tensor(value) {
      const { shape, data } = toInput(value, 'tensor', 'value');
      return new Tensor(shape.slice(), Float32Array.from(data));
    },

    /** A seeded tensor of normal entries: { shape, stddev = 1, seed = 1 }. */
    randomNormal(spec) {
      const fn = 'randomNormal';
      if (!spec || typeof spec !== 'object') throw new Error(`${fn}: expected an object { shape, stddev, seed }; got ${describe(spec)}`);
      const o = checkKeys(fn, spec, ['shape', 'stddev', 'seed']);
      if (!Array.isArray(o.shape) || !o.shape.every((e) => Number.isInteger(e) && e >= 0)) {
        throw new Error(`${fn}: shape is ${JSON.stringify(o.shape)}; expected an array of whole numbers`);
      }
      const stddev = o.stddev === undefined ? 1 : o.stddev;
      const seed = o.seed === undefined ? 1 : o.seed;
      if (typeof stddev !== 'number') throw new Error(`${fn}: stddev is ${describe(stddev)}; expected a number`);
      if (typeof seed !== 'number') throw new Error(`${fn}: seed is ${describe(seed)}; expected a number`);
      return fromEngine(unwrap(core.randomNormal(o.shape, stddev, seed)));
    },

    /** Largest |a - b| over two tensors of one shape. */
    maxAbsDiff(a, b) {
      const fn = 'maxAbsDiff';
      return unwrap(core.maxAbsDiff(toInput(a, fn, 'a'), toInput(b, fn, 'b'))).value;
    },

    /**
     * How saturated a softmax row gets as d_k grows, with and without 1/sqrt(d_k).
     * @param spec { dks: number[], keys = 5, trials = 200, seed = 1 }
     * @returns [{ dk, maxWeightScaled, maxGradScaled, maxWeightUnscaled, maxGradUnscaled }]
     */
    softmaxSaturation(spec) {
      const fn = 'softmaxSaturation';
      if (!spec || typeof spec !== 'object') throw new Error(`${fn}: expected an object { dks, keys, trials, seed }; got ${describe(spec)}`);
      const o = checkKeys(fn, spec, ['dks', 'keys', 'trials', 'seed']);
      if (!Array.isArray(o.dks) || !o.dks.every((x) => typeof x === 'number')) {
        throw new Error(`${fn}: dks is ${describe(o.dks)}; expected an array of numbers`);
      }
      return unwrap(core.softmaxSaturation(o.dks, numberArg(fn, o, 'keys', 5), numberArg(fn, o, 'trials', 200), numberArg(fn, o, 'seed', 1)));
    },

    /**
     * Shapes of every tensor in one attention layer.
     * @param spec { batch = 1, n, dModel, heads = 1, dk = dModel / heads, dv = dk }
     * @returns { steps: [{ id, formula, shape }], parameters, scoreEntries }
     */
    traceShapes(spec) {
      const fn = 'traceShapes';
      if (!spec || typeof spec !== 'object') throw new Error(`${fn}: expected an object { batch, n, dModel, heads, dk, dv }; got ${describe(spec)}`);
      const o = checkKeys(fn, spec, ['batch', 'n', 'dModel', 'heads', 'dk', 'dv']);
      const sizes = {};
      sizes.batch = wholeOption(fn, o, 'batch', 1, 1);
      sizes.n = wholeOption(fn, o, 'n', undefined, 1);
      sizes.dModel = wholeOption(fn, o, 'dModel', undefined, 1);
      sizes.heads = wholeOption(fn, o, 'heads', 1, 1);
      // 0 asks the engine to derive them: dk = dModel / heads, dv = dk.
      sizes.dk = o.dk === undefined ? 0 : wholeOption(fn, o, 'dk', undefined, 1);
      sizes.dv = o.dv === undefined ? 0 : wholeOption(fn, o, 'dv', undefined, 1);
      return unwrap(core.traceShapes(sizes));
    },

    /**
     * A fixed-shape attention whose buffers stay in wasm memory, for per-frame recomputation.
     * @param spec { batch = [], m, n, dk, dv, causal, validLens, mask, scale }
     */
    createWorkspace(spec) {
      return new Workspace(core, spec);
    },

    /** The lessons' example inputs: { timeFlies, worked }, each { tokens, Q, K, V }. */
    examples() {
      const raw = core.examples();
      return { timeFlies: exampleResult(raw.timeFlies), worked: exampleResult(raw.worked) };
    },

    /** Bytes the engine's allocator has in use, wasm memory size, live JS handles: for leak checks. */
    memory() {
      return {
        heapInUse: core.heapInUse(),
        heapSize: core.heapSize(),
        handles: typeof core.count_emval_handles === 'function' ? core.count_emval_handles() : undefined,
      };
    },

    Tensor,
    ATTENTION_OPTIONS,
  };
}

module.exports = { createLab };
