'use strict';
// The public JavaScript API over the engine's embind module. Same code in node and browsers:
// it checks JavaScript types and structure (options.js, tensor.js), converts, calls the
// engine, and turns { error } into Error. Every value rule (ranges, whole numbers, shapes,
// finiteness) is the engine's, so the same message comes from node, the browser and C++.

const { Tensor, fromEngine, toInput, describe } = require('./tensor.js');
const {
  checkKeys, checkSpec, boolOption, numberOption, numberArg, numberList, choiceOption, stagesOption,
  attentionOptions, ATTENTION_OPTIONS, ATTENTION_CALL_OPTIONS,
} = require('./options.js');
// workspace.js, dot-product-stats.js (and cost.js's kv-cache.js) are required by the call
// that first needs them: few pages do, and each module loaded costs the engine's start-up.
const { Staging } = require('./staging.js');
const { costApi } = require('./cost.js');
const { mistakesApi } = require('./mistakes.js');
const { headsApi } = require('./heads.js');

function unwrap(result) {
  if (result && typeof result.error === 'string') throw new Error(result.error);
  return result;
}

function exampleResult(raw) {
  const out = { tokens: raw.tokens };
  for (const key of ['Q', 'K', 'V', 'X', 'Wq', 'Wk', 'Wv']) if (raw[key]) out[key] = fromEngine(raw[key]);
  return out;
}

/**
 * Training's functions (trainer.js), loaded by the first call that needs them: most pages
 * never train, and each module loaded adds to the engine's start-up.
 */
function lazyTrainerApi(load) {
  let api = null;
  const get = () => api || (api = load());
  return {
    createTrainer: (options) => get().createTrainer(options),
    loadTrainer: (weights, extra) => get().loadTrainer(weights, extra),
    attentionBackward: (Q, K, V, dOutput, options) => get().attentionBackward(Q, K, V, dOutput, options),
    get TRAINER_DEFAULTS() { return get().TRAINER_DEFAULTS; },
  };
}

/** lab.loadModel (model.js), loaded by its first call, as training's functions are. */
function lazyModelApi(load) {
  let api = null;
  return { loadModel: (source) => (api || (api = load())).loadModel(source) };
}

/**
 * Builds the API object around a loaded engine module.
 * @param core the instantiated embind module (createAttentionLabCore())
 * @param hooks { shippedModel?: () => the shipped model's object } where the environment can
 *   read it (node); pages register it with its script (model-file.js)
 */
function createLab(core, hooks = {}) {
  const staging = new Staging(core);
  // What tensor.js needs from the engine: its size cap and its memory (to copy views of it).
  const ctx = { maxElements: core.maxElements(), engineBuffer: () => staging.buffer() };
  const input = (value, fn, name) => toInput(value, fn, name, ctx);
  const mistakes = mistakesApi(core, ctx, unwrap);

  return {
    /**
     * Scaled dot-product attention with every stage kept (or only those in options.stages).
     * @param Q queries [..., m, d_k]; K keys [..., n, d_k]; V values [..., n, d_v]
     * @param options { causal, validLens, mask, window, scale, scaling, temperature, stages }
     * @returns { scores, scaled, masked, weights, output, scale, fullyMaskedRows }
     */
    attention(Q, K, V, options) {
      const fn = 'attention';
      const { options: o, own } = attentionOptions(fn, options, ctx, ATTENTION_CALL_OPTIONS);
      const stages = stagesOption(fn, own);
      return staging.attention(input(Q, fn, 'Q'), input(K, fn, 'K'), input(V, fn, 'V'), o, stages);
    },

    /** Numerically safe softmax along options.axis (default -1, the last axis). */
    softmax(x, options) {
      const fn = 'softmax';
      const o = checkKeys(fn, options, ['axis']);
      return fromEngine(unwrap(core.softmax(input(x, fn, 'x'), numberArg(fn, o, 'axis', -1))));
    },

    /**
     * Multi-head self-attention of X [n, d_model].
     * @param spec { X, Wq, Wk, Wv, Wo?, heads, causal?, method?: 'loop' | 'batched',
     *   forgetMergeTranspose?, scale? }
     * @returns { q, k, v, scores, weights, headOutputs, concat, output, scale }
     */
    multiHeadAttention(spec) {
      const fn = 'multiHeadAttention';
      const o = checkSpec(fn, spec, ['X', 'Wq', 'Wk', 'Wv', 'Wo', 'heads', 'causal', 'method', 'forgetMergeTranspose', 'scale']);
      const args = {
        X: input(o.X, fn, 'X'),
        Wq: input(o.Wq, fn, 'Wq'),
        Wk: input(o.Wk, fn, 'Wk'),
        Wv: input(o.Wv, fn, 'Wv'),
        heads: numberArg(fn, o, 'heads', 1),
        causal: boolOption(fn, o, 'causal'),
        method: choiceOption(fn, o, 'method', ['loop', 'batched'], "'loop' or 'batched'") || 'batched',
        forgetMergeTranspose: boolOption(fn, o, 'forgetMergeTranspose'),
      };
      if (o.Wo !== undefined && o.Wo !== null) args.Wo = input(o.Wo, fn, 'Wo');
      const scale = numberOption(fn, o, 'scale');
      if (scale !== undefined) args.scale = scale;
      const raw = unwrap(core.multiHeadAttention(args));
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
      const o = checkSpec(fn, spec, ['dk', 'samples', 'seed']);
      return unwrap(core.dotProductStats(numberArg(fn, o, 'dk'), numberArg(fn, o, 'samples', 10000), numberArg(fn, o, 'seed', 1)));
    },

    /**
     * The same experiment in steps: { add(count), samples, result(), dispose() }.
     * @param spec { dk, seed = 1 }
     */
    createDotProductStats(spec) {
      const { DotProductStats } = require('./dot-product-stats.js');
      return new DotProductStats(core, spec);
    },

    /**
     * Every arithmetic step behind one query row of 2-D attention.
     * @returns { row, scale, terms [n, d_k], scores, scaled, masked, rowMax, expRaw, expShifted,
     *   sumRaw, sumShifted, naiveWeights (expRaw / sumRaw, NaN on overflow), naiveError (largest
     *   |naiveWeights - weights| over its numbers), weights,
     *   weightedValues [n, d_v], output, fullyMasked }
     */
    explainRow(Q, K, V, row, options) {
      const fn = 'explainRow';
      if (typeof row !== 'number') throw new Error(`${fn}: row is ${describe(row)}; expected a whole number`);
      const { options: o } = attentionOptions(fn, options, ctx);
      const raw = unwrap(core.explainRow(input(Q, fn, 'Q'), input(K, fn, 'K'), input(V, fn, 'V'), o, row));
      for (const key of ['terms', 'scores', 'scaled', 'masked', 'expRaw', 'expShifted', 'naiveWeights', 'weights', 'weightedValues', 'output']) {
        raw[key] = fromEngine(raw[key]);
      }
      return raw;
    },

    /** A Tensor from nested arrays or { shape, data } (a copy; checks shape, no arithmetic). */
    tensor(value) {
      return fromEngine(unwrap(core.tensor(input(value, 'tensor', 'value'))));
    },

    /** A seeded tensor of normal entries: { shape, stddev = 1, seed = 1 }. */
    randomNormal(spec) {
      const fn = 'randomNormal';
      const o = checkSpec(fn, spec, ['shape', 'stddev', 'seed']);
      const shape = numberList(fn, o.shape, 'shape');
      return fromEngine(unwrap(core.randomNormal(shape, numberArg(fn, o, 'stddev', 1), numberArg(fn, o, 'seed', 1))));
    },

    /** Largest |a - b| over two tensors of one shape. */
    maxAbsDiff(a, b) {
      const fn = 'maxAbsDiff';
      return unwrap(core.maxAbsDiff(input(a, fn, 'a'), input(b, fn, 'b'))).value;
    },

    /**
     * How saturated a softmax row gets as d_k grows, with and without 1/sqrt(d_k).
     * @param spec { dks: number[], keys = 5, trials = 200, seed = 1 }
     * @returns [{ dk, maxWeightScaled, maxGradScaled, maxWeightUnscaled, maxGradUnscaled }]
     */
    softmaxSaturation(spec) {
      const fn = 'softmaxSaturation';
      const o = checkSpec(fn, spec, ['dks', 'keys', 'trials', 'seed']);
      const dks = numberList(fn, o.dks, 'dks');
      return unwrap(core.softmaxSaturation(dks, numberArg(fn, o, 'keys', 5), numberArg(fn, o, 'trials', 200), numberArg(fn, o, 'seed', 1)));
    },

    /**
     * Shapes of every tensor in one attention layer.
     * @param spec { batch = 1, n, dModel, heads = 1, dk = dModel / heads, dv = dk }
     * @returns { steps: [{ id, formula, shape }], parameters, scoreEntries }
     */
    traceShapes(spec) {
      const fn = 'traceShapes';
      const o = checkSpec(fn, spec, ['batch', 'n', 'dModel', 'heads', 'dk', 'dv']);
      // dk, dv = 0 ask the engine to derive them: dk = dModel / heads, dv = dk.
      const sizes = {
        batch: numberArg(fn, o, 'batch', 1),
        n: numberArg(fn, o, 'n'),
        dModel: numberArg(fn, o, 'dModel'),
        heads: numberArg(fn, o, 'heads', 1),
        dk: numberArg(fn, o, 'dk', 0),
        dv: numberArg(fn, o, 'dv', 0),
      };
      return unwrap(core.traceShapes(sizes));
    },

    /**
     * A fixed-shape attention whose buffers stay in wasm memory, for per-frame recomputation.
     * @param spec { batch = [], m, n, dk, dv, causal, validLens, mask, scale }
     */
    createWorkspace(spec) {
      const { Workspace } = require('./workspace.js');
      return new Workspace(core, spec, ctx);
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

    ...costApi(core, { input, ctx, unwrap }),
    ...lazyTrainerApi(() => require('./trainer.js').trainerApi(core, { input, ctx })),
    ...headsApi(core, ctx, unwrap),
    ...lazyModelApi(() => require('./model.js').modelApi(core, hooks.shippedModel)),

    mistake: mistakes.mistake,
    /** Every mistake: [{ name, title, symptom, fix }], in teaching order (read on first use). */
    get MISTAKES() {
      return mistakes.MISTAKES;
    },
    Tensor,
    ATTENTION_OPTIONS,
  };
}

module.exports = { createLab };
