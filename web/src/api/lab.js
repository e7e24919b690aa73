'use strict';
// The public JavaScript API over the engine's embind module. Same code in node and browsers.
// Every function is made by api() below from its signature in signatures.js: the reader
// (options.js) checks JavaScript types and structure and builds what the engine reads, the
// body converts and calls the engine, and { error } becomes an Error. Every value rule
// (ranges, whole numbers, shapes, finiteness) is the engine's, so the same message comes from
// node, the browser and C++.

const { Tensor, fromEngine } = require('./tensor.js');
const { own } = require('./options.js');
const { SIGNATURES, ATTENTION_OPTIONS } = require('./signatures.js');
const { makeEngine } = require('./engine.js');
const { run, unwrap } = require('./call.js');
const { positionArgs } = require('./staging.js');
const { costApi } = require('./cost.js');
const { mistakesApi } = require('./mistakes.js');
// workspace.js, dot-product-stats.js (and cost.js's kv-cache.js) are required by the call
// that first needs them: few pages do, and each module loaded costs the engine's start-up.

function exampleResult(raw) {
  const out = { tokens: own(raw, 'tokens') };
  for (const key of ['Q', 'K', 'V', 'X', 'Wq', 'Wk', 'Wv']) {
    const t = own(raw, key);
    if (t) out[key] = fromEngine(t);
  }
  return out;
}

// The bodies of the functions in this file, by name: each gets the engine and the arguments
// as the reader made them (one entry per parameter of its signature).
const BODIES = {
  /**
   * Scaled dot-product attention with every stage kept (or only those in options.stages).
   * @param Q queries [..., m, d_k]; K keys [..., n, d_k]; V values [..., n, d_v]
   * @param options { causal, validLens, mask, window, scale, scaling, temperature, rope, alibi, stages }
   * @returns { scores, scaled, masked, weights, output, scale, fullyMaskedRows }
   */
  attention: (e, [Q, K, V, o]) => e.staging.attention(Q, K, V, o, o.stages),

  /**
   * Position tables (cpp/include/attnlab/positions.hpp), as a Tensor: 'sinusoidal' { n, d, base }
   * the table [n, d]; 'rope' { n, d, base, offset } the angles [n, d/2] of positions offset..;
   * 'alibi' { heads } the slopes [heads].
   */
  positions: (e, [o]) => {
    // the kind as its number and which fields were given (cpp/bindings/position_tables.cpp)
    const fields = ['n', 'd', 'base', 'offset', 'heads'];
    let given = 0;
    for (let i = 0; i < fields.length; i++) if (o[fields[i]] !== undefined) given |= 1 << i;
    const num = (x) => (x === undefined ? 0 : x);
    return fromEngine(unwrap(e.core.positions(['sinusoidal', 'rope', 'alibi'].indexOf(o.kind), num(o.n), num(o.d), num(o.base), num(o.offset), num(o.heads), given)));
  },

  /**
   * X [..., n, d] turned by RoPE: row p of each matrix to position offset + p, in `layout`
   * ('interleaved' or 'half'), what attention's `rope` does to Q and K.
   */
  rope: (e, [X, o]) => {
    // the layout and whether a base was given in one number (cpp/bindings/position_tables.cpp)
    const [layout, hasBase, base, offset] = positionArgs({ rope: o });
    return fromEngine(unwrap(e.core.rope(X, layout + (hasBase ? 2 : 0), base, offset)));
  },

  /** Numerically safe softmax along options.axis (default -1, the last axis). */
  softmax: (e, [x, o]) => fromEngine(unwrap(e.core.softmax(x, o.axis))),

  /**
   * Multi-head self-attention of X [n, d_model].
   * @param spec { X, Wq, Wk, Wv, Wo?, heads = 1, causal?, method?: 'loop' | 'batched', forgetMergeTranspose?, scale? }
   * @returns { q, k, v, scores, weights, headOutputs, concat, output, scale }
   */
  multiHeadAttention: (e, [spec]) => {
    const raw = unwrap(e.core.multiHeadAttention(spec));
    const out = { scale: raw.scale };
    for (const key of ['q', 'k', 'v', 'scores', 'weights', 'headOutputs', 'concat', 'output']) out[key] = fromEngine(raw[key]);
    return out;
  },

  /**
   * The sqrt(d_k) experiment: statistics of q.k for standard-normal q, k.
   * @param spec { dk, samples = 10000, seed = 1 }
   * @returns { mean, variance, std, expectedStd }
   */
  dotProductStats: (e, [o]) => unwrap(e.core.dotProductStats(o.dk, o.samples, o.seed)),

  /**
   * Every arithmetic step behind one query row of 2-D attention.
   * @returns { row, scale, terms [n, d_k], scores, scaled, masked, rowMax, expRaw, expShifted,
   *   sumRaw, sumShifted, naiveWeights (expRaw / sumRaw, NaN on overflow), naiveError (largest
   *   |naiveWeights - weights| over its numbers), weights, weightedValues [n, d_v], output, fullyMasked }
   */
  explainRow: (e, [Q, K, V, row, o]) => {
    const raw = unwrap(e.core.explainRow(Q, K, V, o, row));
    for (const key of ['terms', 'scores', 'scaled', 'masked', 'expRaw', 'expShifted', 'naiveWeights', 'weights', 'weightedValues', 'output']) {
      raw[key] = fromEngine(raw[key]);
    }
    return raw;
  },

  /** A Tensor from nested arrays or { shape, data } (a copy; checks shape, no arithmetic). */
  tensor: (e, [value]) => fromEngine(unwrap(e.core.tensor(value))),

  /** A seeded tensor of normal entries: { shape, stddev = 1, seed = 1 }. */
  randomNormal: (e, [o]) => fromEngine(unwrap(e.core.randomNormal(o.shape, o.stddev, o.seed))),

  /** Largest |a - b| over two tensors of one shape. */
  maxAbsDiff: (e, [a, b]) => unwrap(e.core.maxAbsDiff(a, b)).value,

  /**
   * How saturated a softmax row gets as d_k grows, with and without 1/sqrt(d_k).
   * @param spec { dks: number[], keys = 5, trials = 200, seed = 1 }
   * @returns [{ dk, maxWeightScaled, maxGradScaled, maxWeightUnscaled, maxGradUnscaled }]
   */
  softmaxSaturation: (e, [o]) => unwrap(e.core.softmaxSaturation(o.dks, o.keys, o.trials, o.seed)),

  /**
   * Shapes of every tensor in one attention layer.
   * @param spec { batch = 1, n, dModel, heads = 1, dk = dModel / heads, dv = dk }
   * @returns { steps: [{ id, formula, shape }], parameters, scoreEntries }
   */
  traceShapes: (e, [sizes]) => unwrap(e.core.traceShapes(sizes)),

  /**
   * A fixed-shape attention whose buffers stay in wasm memory, for per-frame recomputation.
   * @param spec { batch = [], m, n, dk, dv, causal, validLens, mask, window, scale, scaling, temperature }
   */
  createWorkspace: (e, [spec]) => {
    const { Workspace } = require('./workspace.js');
    return new Workspace(e, spec);
  },

  /**
   * The same experiment as dotProductStats in steps: { add(count), samples, result(), dispose() }.
   * @param spec { dk, seed = 1 }
   */
  createDotProductStats: (e, [spec]) => {
    const { DotProductStats } = require('./dot-product-stats.js');
    return new DotProductStats(e, spec);
  },

  /** The lessons' example inputs: { timeFlies, worked }, each { tokens, Q, K, V }. */
  examples: (e) => {
    const raw = e.core.examples();
    return { timeFlies: exampleResult(raw.timeFlies), worked: exampleResult(raw.worked) };
  },

  /** Bytes the engine's allocator has in use, wasm memory size, live JS handles: for leak checks. */
  memory: (e) => ({
    heapInUse: e.core.heapInUse(),
    heapSize: e.core.heapSize(),
    handles: typeof e.core.count_emval_handles === 'function' ? e.core.count_emval_handles() : undefined,
  }),

  ...costApi(),
  ...mistakesApi(),

  /** lab.headSummary (heads.js): the scores that tell a model's head types apart. */
  headSummary: (e, args) => require('./heads.js').headSummary(e, args),

  // Training (trainer.js) and the trained model (model.js) are required by their first call:
  // most pages never train, and each module loaded adds to the engine's start-up.
  /** A trainer for a small transformer; every option has a default (lab.TRAINER_DEFAULTS). */
  createTrainer: (e, args) => require('./trainer.js').TRAINER_BODIES.createTrainer(e, args),
  /** A trainer from Trainer.exportWeights()'s object (and the sequences or text it trained on). */
  loadTrainer: (e, args) => require('./trainer.js').TRAINER_BODIES.loadTrainer(e, args),
  /** Gradients of attention: given dOutput = dL/d(output), { dQ, dK, dV, dS, scale }. */
  attentionBackward: (e, args) => require('./trainer.js').TRAINER_BODIES.attentionBackward(e, args),
  /** A trained model with its tokenizer: nothing (the shipped model), a name, an object, a file's text or bytes. */
  loadModel: (e, args) => require('./model.js').loadModel(e, args),
};

/**
 * Builds the API object around a loaded engine module.
 * @param module the instantiated embind module (createAttentionLabCore())
 * @param restart () => a new instantiated module, made synchronously (web/src/index.js); used
 *   by reset() and after the engine stops. Without it reset() is an Error.
 * @param hooks { shippedModel?: () => the shipped model's object } where the environment can
 *   read it (node); pages register it with its script (model-file.js)
 */
function createLab(module, restart, hooks = {}) {
  // An engine, with where the environment can read the shipped model (node: the package's file).
  const make = (m) => Object.assign(makeEngine(m), { shippedModel: hooks.shippedModel });
  let engine = make(module);
  const renew = () => {
    if (!restart) throw new Error('reset: this engine was loaded without a way to restart it; expected one from loadAttentionLab()');
    engine = make(restart());
  };
  // The engine for a call: after a stop, a fresh one (objects made on the old one refuse calls).
  // If it cannot start (the page broke what the glue needs), the call names the stop.
  const current = () => {
    if (engine.stopped && restart) {
      try {
        renew();
      } catch (_) {
        // The engine stays stopped, and this call says so; the next one tries again.
      }
    }
    return engine;
  };
  /** lab[name]: reads its arguments by SIGNATURES[name] and runs BODIES[name] on the current engine. */
  const api = (name) => {
    const sig = SIGNATURES[name], body = BODIES[name];
    if (sig.params.length > 5) throw new Error(`createLab: ${name} declares ${sig.params.length} parameters; api() passes five`);
    // Five named parameters, the most any signature has: no arguments object per call.
    return function (a, b, c, d, e) {
      return run(current, sig, [a, b, c, d, e], body);
    };
  };
  const lab = {};
  for (const name of Object.keys(BODIES)) lab[name] = api(name);
  /**
   * Gives the engine's memory back: later calls run on a fresh engine at its starting size
   * (wasm memory only grows, so a large call leaves the old one at its high-water mark).
   * Workspaces, caches and experiments made before keep the old engine, and its memory, until
   * they are disposed and collected.
   */
  lab.reset = function reset() {
    run(current, SIGNATURES.reset, arguments, renew);
  };
  Object.defineProperty(lab, 'MISTAKES', {
    /** Every mistake: [{ name, title, symptom, fix }], in teaching order (read on first use). */
    get() { return engine.catalog(); },
    enumerable: true,
  });
  let defaults = null;
  Object.defineProperty(lab, 'TRAINER_DEFAULTS', {
    /** createTrainer's defaults, which the trainer widget shares (read on first use). */
    get() { return defaults || (defaults = Object.freeze(engine.core.trainerDefaults())); },
    enumerable: true,
  });
  lab.Tensor = Tensor;
  lab.ATTENTION_OPTIONS = ATTENTION_OPTIONS;
  return lab;
}

module.exports = { createLab, BODIES };
