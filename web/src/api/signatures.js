'use strict';
// The API list: every public function's and method's arguments, declared once, in the order
// they are read. The reader (options.js) reads each call by its signature here, and two tests
// are generated from this list: tests/node/api-sizes.test.js passes 2^31, 2^32 - 1, 2^32,
// 2^32 + 1 and 2^53 to every size argument (and every extent of every tensor argument), and
// tests/node/api-pollution.test.js runs every function with Object.prototype carrying every
// option name declared here.
//
// A new function joins in two steps: declare its signature below, and read its arguments with
// readArgs(SIGNATURES.<name>, [...arguments], ctx) (or make it with api() in lab.js, which does
// that). Both tests then cover it by default: they fail, naming it, until
// tests/node/api-examples.js has an example call for it to vary.

const {
  signature, size, count, number, bool, choice, text, tensor, mask, sizes, stages, object,
  strings, tokens, tokenLists, list, source,
} = require('./options.js');

const OPT = { optional: true, nullable: true };
const SCALINGS = ['sqrt', 'none', 'dk'];
const DTYPES = ['float64', 'float32', 'float16', 'bfloat16', 'int8'];
const dtypeHint = () => `one of ${DTYPES.map((d) => `'${d}'`).join(', ')}`;

// The masks and scale of one attention call, in the order of the README's table.
const MASKS = { causal: bool(), validLens: tensor(OPT), mask: mask(OPT), window: count(OPT) };
const SCALE = {
  scale: number(OPT),
  scaling: choice(SCALINGS, "'sqrt' (1/sqrt(d_k)), 'none' or 'dk' (1/d_k)", { optional: true }),
  temperature: number(OPT),
};
const ATTENTION_FIELDS = { ...MASKS, ...SCALE };
// Positions (cpp/include/attnlab/positions.hpp): RoPE on Q and K, ALiBi's biases. `rope` is an
// object of its own options ({} for the defaults), left out (undefined) when not given.
const LAYOUTS = ['interleaved', 'half'];
const ROPE_FIELDS = {
  layout: choice(LAYOUTS, "'interleaved' (pairs 2i, 2i+1) or 'half' (pairs i, i + d/2)", OPT), base: number(OPT), offset: count(OPT),
};
const ROPE_KIND = object(ROPE_FIELDS, { nested: true });
const POSITION_FIELDS = { rope: Object.freeze({ ...ROPE_KIND, fallback: undefined, optional: true }), alibi: bool() };
const POSITIONS = ['learned', 'sinusoidal', 'rope', 'alibi', 'none'];
const QKV = [['Q', tensor()], ['K', tensor()], ['V', tensor()]];
const ROW = ['row', size({ hint: 'a whole number' })];
const spec = (fields) => ['spec', object(fields, { required: true })];
const options = (fields) => ['options', object(fields)];

// A trainer's options (createTrainer; a weights file's options): every one optional, the
// engine fills in its defaults (lab.TRAINER_DEFAULTS) and checks every value.
const TASKS = ['induction', 'copy', 'reverse', 'sort', 'sequences', 'text'];
const MODEL_SHAPE = {
  vocab: size(OPT), seqLen: size(OPT), layers: size(OPT), heads: size(OPT), dModel: size(OPT), mlp: size(OPT),
  activation: choice(['gelu', 'relu'], "'gelu' or 'relu'", OPT), layerNorm: bool(undefined),
  positions: choice(POSITIONS, POSITIONS.map((t) => `'${t}'`).join(', '), OPT),
};
const TRAINER_FIELDS = {
  task: choice(TASKS, TASKS.map((t) => `'${t}'`).join(', '), OPT), ...MODEL_SHAPE,
  batch: size(OPT), lr: number(OPT), weightDecay: number(OPT), warmupSteps: count(OPT), decaySteps: count(OPT),
  minLr: number(OPT), seed: count(OPT), sequences: tokenLists(OPT), text: tokens(OPT), scoreFrom: size(OPT), repeats: number(OPT),
};
// One weight tensor of a weights file: base64 text of little-endian float32 or float16 numbers.
const PARAMETER = object({
  name: text(() => 'the weight\'s name'), shape: sizes(), dtype: choice(['float32', 'float16'], "'float32' or 'float16'"),
  data: text(() => 'base64 text'),
}, { required: true, nested: true });
// A weights file (Trainer.exportWeights). Its format and version are checked by the reader of
// the file (trainer.js), which names what the file should be.
const WEIGHTS_FILE = {
  format: source(), version: source(), options: object(TRAINER_FIELDS, { required: true, nested: true }), step: count(OPT),
  parameters: list(PARAMETER, { hint: 'an array of { name, shape, dtype, data }' }),
};

// Ablation (Trainer.ablate, Model.ablate): which heads to knock out, and how.
const ABLATION = {
  heads: list(sizes(), { hint: 'an array of [layer, head] pairs' }),
  mode: choice(['zero', 'mean'], "'zero' or 'mean'", { fallback: 'zero' }),
};

const SIGNATURES = Object.freeze({
  attention: signature('attention', ...QKV, options({ ...ATTENTION_FIELDS, ...POSITION_FIELDS, stages: stages() })),
  positions: signature('positions', spec({
    kind: choice(['sinusoidal', 'rope', 'alibi'], "'sinusoidal', 'rope' or 'alibi'"), n: size(OPT), d: size(OPT), base: number(OPT),
    offset: count(OPT), heads: size(OPT),
  })),
  rope: signature('rope', ['X', tensor()], options(ROPE_FIELDS)),
  softmax: signature('softmax', ['x', tensor()], options({ axis: number({ int: true, fallback: -1 }) })),
  multiHeadAttention: signature('multiHeadAttention', spec({
    X: tensor(), Wq: tensor(), Wk: tensor(), Wv: tensor(), Wo: tensor(OPT), heads: size({ fallback: 1 }), causal: bool(),
    method: choice(['loop', 'batched'], "'loop' or 'batched'", { fallback: 'batched' }), forgetMergeTranspose: bool(), scale: number(OPT),
  })),
  dotProductStats: signature('dotProductStats', spec({ dk: size(), samples: size({ fallback: 10000 }), seed: count({ fallback: 1 }) })),
  createDotProductStats: signature('createDotProductStats', spec({ dk: size(), seed: count({ fallback: 1 }) })),
  'DotProductStats.add': signature('createDotProductStats: add', ['count', size({ hint: 'a whole number' })]),
  explainRow: signature('explainRow', ...QKV, ROW, options(ATTENTION_FIELDS)),
  tensor: signature('tensor', ['value', tensor()]),
  randomNormal: signature('randomNormal', spec({ shape: sizes(), stddev: number({ fallback: 1 }), seed: count({ fallback: 1 }) })),
  maxAbsDiff: signature('maxAbsDiff', ['a', tensor()], ['b', tensor()]),
  softmaxSaturation: signature('softmaxSaturation', spec({
    dks: sizes(), keys: size({ fallback: 5 }), trials: size({ fallback: 200 }), seed: count({ fallback: 1 }),
  })),
  // dk, dv = 0 ask the engine to derive them: dk = dModel / heads, dv = dk.
  traceShapes: signature('traceShapes', spec({
    batch: size({ fallback: 1 }), n: size(), dModel: size(), heads: size({ fallback: 1 }), dk: size({ fallback: 0 }), dv: size({ fallback: 0 }),
  })),
  createWorkspace: signature('createWorkspace', spec({
    batch: sizes({ fallback: Object.freeze([]) }), m: size(), n: size(), dk: size(), dv: size(), ...ATTENTION_FIELDS,
  })),
  examples: signature('examples'),
  memory: signature('memory'),
  reset: signature('reset'),
  tiledAttention: signature('tiledAttention', ...QKV, options({
    causal: MASKS.causal, validLens: MASKS.validLens, window: MASKS.window, scale: SCALE.scale, blockQ: size(OPT), blockK: size(OPT),
  })),
  costFigures: signature('costFigures', spec({
    batch: size({ fallback: 1 }), heads: size({ fallback: 1 }), m: size(), n: size(), dk: size(), dv: size(OPT),
    blockQ: size(OPT), blockK: size(OPT), causal: bool(), window: count(OPT), fastMemory: count(OPT),
  })),
  explainOnlineSoftmax: signature('explainOnlineSoftmax', ...QKV, ROW, options({
    block: size(OPT), causal: bool(), validLens: MASKS.validLens, window: MASKS.window, scale: SCALE.scale,
  })),
  kvCacheBytes: signature('kvCacheBytes', spec({
    layers: count({ fallback: 1 }), kvHeads: count(), dHead: count(), dtype: text(dtypeHint, { fallback: 'float16' }),
    tokens: count({ fallback: 1 }), batch: count({ fallback: 1 }), heads: count(OPT), window: count(OPT),
  })),
  attentionMatrixBytes: signature('attentionMatrixBytes', spec({
    batch: count({ fallback: 1 }), heads: count({ fallback: 1 }), n: count(), dtype: text(dtypeHint, { fallback: 'float32' }), window: count(OPT),
  })),
  createKVCache: signature('createKVCache', spec({
    heads: size(), kvHeads: size(OPT), dHead: size(), maxLength: size(), scale: number(OPT), ...POSITION_FIELDS,
  })),
  'KVCache.append': signature('KVCache.append', ['k', tensor()], ['v', tensor()]),
  'KVCache.attend': signature('KVCache.attend', ['q', tensor()]),
  mistake: signature('mistake', ['name', text((ctx) => `a string, one of ${ctx.mistakeNames()}`)], spec({
    Q: tensor(), K: tensor(), V: tensor(), causal: bool(), validLens: tensor(OPT), mask: mask(OPT),
  })),
  headSummary: signature('headSummary', ['attentions', tensor()], options({
    tokens: strings(OPT), queryTokens: strings(OPT), causal: bool(), decimals: number(OPT),
  })),
  createTrainer: signature('createTrainer', options(TRAINER_FIELDS)),
  loadTrainer: signature('loadTrainer', ['weights', object(WEIGHTS_FILE, { required: true })],
    ['extra', object({ sequences: TRAINER_FIELDS.sequences, text: TRAINER_FIELDS.text })]),
  attentionBackward: signature('attentionBackward', ...QKV, ['dOutput', tensor()], options(ATTENTION_FIELDS)),
  'Trainer.step': signature('Trainer.step', ['count', size({ fallback: 1, hint: 'a number of steps' })]),
  'Trainer.evaluate': signature('Trainer.evaluate'),
  'Trainer.lossByPosition': signature('Trainer.lossByPosition', spec({ length: size(), examples: size({ fallback: 32 }) })),
  'Trainer.attention': signature('Trainer.attention', ['tokens', tokens()]),
  'Trainer.headScores': signature('Trainer.headScores'),
  'Trainer.ablate': signature('Trainer.ablate', spec({ ...ABLATION, tokens: tokens(OPT) })),
  'Trainer.composition': signature('Trainer.composition'),
  'Trainer.exportWeights': signature('Trainer.exportWeights', options({
    dtype: choice(['float32', 'float16'], "'float32' or 'float16' (half the size, rounded to the nearest half)", { fallback: 'float32' }),
  })),
  loadModel: signature('loadModel', ['source', source()]),
  'Model.tokenize': signature('Model.tokenize', ['text', text(() => 'a string')]),
  'Model.attention': signature('Model.attention', ['text', text(() => 'a string')], options({ truncate: bool() })),
  'Model.predict': signature('Model.predict', ['text', text(() => 'a string')], options({ truncate: bool(), top: size({ fallback: 5 }) })),
  'Model.logits': signature('Model.logits', ['text', text(() => 'a string')], options({ truncate: bool() })),
  'Model.headScores': signature('Model.headScores', ['text', text(() => 'a string')], options({ truncate: bool() })),
  'Model.ablate': signature('Model.ablate', ['text', text(() => 'a string')], spec({
    ...ABLATION, meanOver: strings(OPT), top: size({ fallback: 5 }), truncate: bool(),
  })),
  'Model.composition': signature('Model.composition'),
});

/** The option names of lab.attention, as lab.ATTENTION_OPTIONS lists them. */
const ATTENTION_OPTIONS = Object.freeze(Object.keys(ATTENTION_FIELDS));

module.exports = { SIGNATURES, ATTENTION_OPTIONS, DTYPES, SCALINGS, TASKS, POSITIONS, LAYOUTS, MODEL_SHAPE, WEIGHTS_FILE, PARAMETER };
