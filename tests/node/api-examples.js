'use strict';
// One ordinary call of every function and method in web/src/api/signatures.js, for the tests
// generated from that list to vary (api-sizes.test.js: every size argument; api-pollution
// .test.js: Object.prototype carrying every option name). A function added to the list needs
// an entry here; both tests fail, naming it, until it has one.
//
// An entry: args() -> the arguments (tensors as { shape, data } so that their extents can be
// varied); optionally make(lab) -> the object a method is called on (disposed afterwards), and
// call(target, args) -> the result, where target is the lab or the object made (default:
// target[name](...args)); then(result) runs on what a create... function returned (it is
// disposed afterwards) and gives the result to check.

const T = (shape, data) => ({ shape, data: Float32Array.from(data) });
const q3 = () => T([3, 2], [1, 0, 0, 1, 1, 1]);
const k3 = () => T([3, 2], [1, 0, 0, 2, 1, -1]);
const v3 = () => T([3, 2], [1, 2, 3, 4, 5, 6]);
const cache = (lab) => lab.createKVCache({ heads: 2, kvHeads: 1, dHead: 2, maxLength: 4 });
const token = (x) => T([1, 2], [x, 1 - x]);
const queries = () => T([2, 2], [1, 0, 0, 1]);
// A trainer small enough to make hundreds of times: every size is varied in turn.
const tiny = Object.freeze({ vocab: 6, seqLen: 4, layers: 1, heads: 1, dModel: 4, batch: 2, seed: 3 });
const trainer = (lab) => lab.createTrainer({ ...tiny });
let weightsFile = null;
/** The weights file of a tiny trainer (made once, by the node engine). */
function tinyWeights() {
  if (!weightsFile) throw new Error('api-examples: call prepare(lab) first (loadTrainer\'s example reads a weights file the engine made)');
  return JSON.parse(weightsFile);
}

/** What some examples' arguments need from an engine, made once: call before args(). */
function prepare(lab) {
  if (weightsFile) return;
  const tr = trainer(lab);
  weightsFile = JSON.stringify(tr.exportWeights());
  tr.dispose();
}
// The shipped model, loaded once per lab and kept (made anew for each call would cost 50 ms).
const models = new WeakMap();
function model(lab) {
  let m = models.get(lab);
  if (!m || m._handle === null) {
    m = lab.loadModel();
    models.set(lab, m);
  }
  return { __proto__: m, dispose() {} };
}

/** What the tests compare: tensors as plain arrays (a Tensor's methods and buffer aside). */
function plain(value) {
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value)) out[key] = plain(value[key]);
    return out;
  }
  return value;
}

const EXAMPLES = {
  attention: { args: () => [q3(), k3(), v3(), { causal: true }] },
  positions: { args: () => [{ kind: 'rope', n: 4, d: 6, base: 100, offset: 2 }] },
  rope: { args: () => [T([2, 4], [1, 0, 0, 1, 0, 1, 1, 0]), { layout: 'half', base: 100, offset: 2 }] },
  softmax: { args: () => [T([2, 3], [1, 2, 3, 0, 0, 1]), { axis: 1 }] },
  multiHeadAttention: {
    args: () => [{
      X: q3(), Wq: T([2, 4], [1, 0, 0, 1, 0, 1, 1, 0]), Wk: T([2, 4], [0, 1, 1, 0, 1, 0, 0, 1]),
      Wv: T([2, 4], [1, 1, 0, 0, 0, 0, 1, 1]), heads: 2, causal: true,
    }],
  },
  dotProductStats: { args: () => [{ dk: 4, samples: 50, seed: 3 }] },
  createDotProductStats: { args: () => [{ dk: 4, seed: 2 }], then: (s) => s.add(10).result() },
  'DotProductStats.add': { make: (lab) => lab.createDotProductStats({ dk: 4 }), args: () => [10], call: (s, [n]) => s.add(n).result() },
  explainRow: { args: () => [q3(), k3(), v3(), 1, { causal: true }] },
  tensor: { args: () => [T([2, 3], [1, 2, 3, 4, 5, 6])] },
  randomNormal: { args: () => [{ shape: [2, 3], seed: 5 }] },
  maxAbsDiff: { args: () => [T([2], [1, 2]), T([2], [1.5, 2])] },
  softmaxSaturation: { args: () => [{ dks: [4, 16], keys: 4, trials: 3, seed: 2 }] },
  traceShapes: { args: () => [{ batch: 2, n: 4, dModel: 8, heads: 2 }] },
  createWorkspace: {
    args: () => [{ batch: [2], m: 2, n: 3, dk: 2, dv: 2, causal: true }],
    then: (ws) => {
      ws.Q.set([1, 0, 0, 1, 1, 1, 0, 1]);
      ws.K.set([1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 1, 1]);
      ws.V.set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      ws.run();
      return { weights: Array.from(ws.weights), output: Array.from(ws.output), masked: ws.fullyMaskedCount };
    },
  },
  examples: { args: () => [] },
  memory: { args: () => [], compare: false },
  reset: { args: () => [], compare: false },
  tiledAttention: { args: () => [q3(), k3(), v3(), { causal: true, blockQ: 1, blockK: 2 }] },
  costFigures: { args: () => [{ batch: 2, heads: 2, m: 8, n: 8, dk: 4, blockQ: 4, blockK: 4, causal: true }] },
  explainOnlineSoftmax: { args: () => [q3(), k3(), v3(), 2, { block: 2, causal: true }] },
  kvCacheBytes: { args: () => [{ kvHeads: 2, dHead: 8, tokens: 100 }] },
  attentionMatrixBytes: { args: () => [{ n: 16, heads: 2 }] },
  createKVCache: {
    args: () => [{ heads: 2, kvHeads: 1, dHead: 2, maxLength: 4 }],
    then: (c) => {
      c.append(token(1), token(0));
      c.append(token(0), token(1));
      return { step: c.attend(queries()), length: c.length, bytes: c.bytes, sizes: [c.heads, c.kvHeads, c.dHead, c.maxLength] };
    },
  },
  'KVCache.append': { make: cache, args: () => [token(1), token(0)], call: (c, args) => c.append(...args) },
  'KVCache.attend': {
    make: (lab) => {
      const c = cache(lab);
      c.append(token(1), token(0));
      return c;
    },
    args: () => [queries()],
    call: (c, args) => c.attend(...args),
  },
  mistake: { args: () => ['no-padding-mask', { Q: q3(), K: k3(), V: v3(), validLens: 2 }] },
  headSummary: {
    args: () => [T([1, 2, 3, 3], [1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5, 1, 0, 0, 1, 0, 0, 0, 1, 0]), { tokens: ['a', 'b', 'a'], causal: true }],
  },
  createTrainer: { args: () => [{ ...tiny }], then: (tr) => ({ step: tr.step(2), scores: tr.headScores() }) },
  loadTrainer: {
    args: () => [tinyWeights(), {}],
    then: (tr) => ({ loss: tr.evaluate(), steps: tr.steps }),
  },
  attentionBackward: { args: () => [q3(), k3(), v3(), T([3, 2], [1, -1, 0.5, 0, 0, 2]), { causal: true }] },
  'Trainer.step': { make: trainer, args: () => [2] },
  'Trainer.evaluate': { make: trainer, args: () => [] },
  'Trainer.lossByPosition': {
    make: (lab) => lab.createTrainer({ ...tiny, positions: 'rope', dModel: 4 }), args: () => [{ length: 8, examples: 2 }],
  },
  'Trainer.attention': { make: trainer, args: () => [[1, 2, 3, 1]], call: (tr, args) => tr.attention(...args).patterns },
  'Trainer.headScores': { make: trainer, args: () => [] },
  'Trainer.exportWeights': { make: trainer, args: () => [{ dtype: 'float16' }] },
  'Trainer.ablate': {
    make: trainer, args: () => [{ heads: [[0, 0]], mode: 'mean', tokens: [1, 2, 3] }],
    call: (tr, args) => { const r = tr.ablate(...args); return [r.loss, r.scoredLoss, r.probabilities.toArray()]; },
  },
  'Trainer.composition': { make: (lab) => lab.createTrainer({ ...tiny, layers: 2 }), args: () => [] },
  loadModel: { args: () => [], then: (m) => m.predict('the act of').next.slice(0, 2) },
  'Model.tokenize': { make: (lab) => model(lab), args: () => ['the cat sat'] },
  'Model.attention': { make: (lab) => model(lab), args: () => ['the cat sat. the cat', { truncate: false }] },
  'Model.predict': { make: (lab) => model(lab), args: () => ['the act of', { top: 3 }] },
  'Model.logits': { make: (lab) => model(lab), args: () => ['the act of', {}], call: (m, args) => Array.from(m.logits(...args).slice(0, 4)) },
  'Model.headScores': { make: (lab) => model(lab), args: () => ['the cat sat. the cat sat.', {}] },
  'Model.ablate': {
    make: (lab) => model(lab), args: () => ['the cat sat. the cat', { heads: [[1, 0]], mode: 'mean', meanOver: ['a dog ran'], top: 3 }],
    call: (m, args) => { const r = m.ablate(...args); return [r.loss, r.repeatedLoss, r.next]; },
  },
  'Model.composition': { make: (lab) => model(lab), args: () => [], call: (m) => m.composition().copying.map((h) => h.score) },
};

// A model file small enough to vary entry by entry: the tiny trainer's weights with a
// tokenizer of as many pieces (the unknown piece, a, b, c, ab, abc).
function tinyModel() {
  return {
    format: 'attention-lab-model', version: 1, name: 'tiny', about: {},
    tokenizer: { kind: 'bpe', unknown: '?', alphabet: ['a', 'b', 'c'], merges: [[1, 2], [4, 3]] },
    weights: tinyWeights(),
  };
}

// Further calls of some functions, for the arguments their examples above leave out (token
// lists, a token text, a model given as an object): the generated tests vary these too.
const MORE = [
  {
    name: 'createTrainer',
    args: () => [{ ...tiny, task: 'sequences', sequences: [[1, 2, 3], [4, 0, 1, 2, 3]] }],
    then: (tr) => ({ step: tr.step(2), loss: tr.evaluate() }),
  },
  { name: 'createTrainer', args: () => [{ ...tiny, task: 'text', text: [1, 2, 3, 4, 5, 0, 1, 2, 3, 4] }], then: (tr) => tr.step(1) },
  {
    name: 'loadTrainer',
    args: () => [{ ...tinyWeights(), options: { ...tinyWeights().options, task: 'sequences' } }, { sequences: [[1, 2, 3], [3, 2, 1, 0]] }],
    then: (tr) => tr.step(1),
  },
  { name: 'loadModel', args: () => [tinyModel()], then: (m) => m.predict('abcab ca', { top: 3, truncate: true }) },
];

/**
 * Runs the example of `name` with `args` (default: its own) and returns the result as plain
 * data; disposes whatever it made. `ex` runs another call of the same function (one of MORE).
 */
function runExample(lab, name, args, ex = EXAMPLES[name]) {
  const target = ex.make ? ex.make(lab) : lab;
  try {
    const given = args || ex.args();
    const method = name.includes('.') ? name.slice(name.indexOf('.') + 1) : name;
    const result = ex.call ? ex.call(target, given) : target[method](...given);
    if (!ex.then) return plain(result);
    try {
      return plain(ex.then(result));
    } finally {
      result.dispose();
    }
  } finally {
    if (ex.make) target.dispose();
  }
}

module.exports = { EXAMPLES, MORE, runExample, plain, prepare };
