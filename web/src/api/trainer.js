'use strict';
// Training in the engine (cpp/src/trainer.cpp): createTrainer, loadTrainer, attentionBackward.
// Like kv-cache.js, every option is read and checked for its JavaScript type before the engine
// object exists, and a failed construction frees it. Values (sizes, ranges, token ids, the
// learning rate) are the engine's rules; token lists cross as Float64Arrays so that 3.5 or
// 2^32 + 1 reach the engine's check instead of being truncated on the way.

const { fromEngine } = require('./tensor.js');
const { SIGNATURES } = require('./signatures.js');
const { EngineObject, engineObject } = require('./engine-object.js');
const { unwrap } = require('./call.js');
const { Fields } = require('./options.js');
const { readParameters, writeParameters, checkWeightsFile, shapeSpec, WEIGHTS_FORMAT, WEIGHTS_VERSION } = require('./weights-file.js');
const { trainerAblate } = require('./ablation.js');

const DISPOSED = (fn) => `${fn}: the trainer was disposed; expected a trainer from createTrainer that is still live`;

/**
 * The engine's form of createTrainer's options, as the reader made them (signatures.js,
 * TRAINER_FIELDS): here only the rule between task and its data; every value is the engine's.
 */
function trainerSpec(fn, o) {
  const task = o.task;
  const needs = task === 'sequences' ? 'sequences' : task === 'text' ? 'text' : null;
  for (const key of ['sequences', 'text']) {
    if (o[key] === undefined) continue;
    if (key !== needs) throw new Error(`${fn}: ${key} is given but task is '${task || 'induction'}'; expected task: '${key}' with it`);
  }
  if (needs && o[needs] === undefined) {
    throw new Error(`${fn}: task '${needs}' needs the ${needs} option; expected ${needs === 'text' ? 'an array of token ids' : 'an array of token arrays'}`);
  }
  return o;
}

class Trainer extends EngineObject {
  /** Use lab.createTrainer(options) or lab.loadTrainer(weights). @param e the engine; @param spec the read options */
  constructor(e, spec, fn = 'createTrainer') {
    super(e, 'Trainer', 'trainer');
    let ok = false;
    try {
      this._guard(fn, () => unwrap(this._handle.configure(spec, fn)));
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
    const about = this._handle.describe();
    /** The options the run uses, every default filled in. */
    this.options = Object.freeze(about.options);
    /** A fixed example of the task (seqLen token ids), for showing the heads' patterns. */
    this.example = Object.freeze(about.example);
    /** Bytes and floats the run holds, known before its first step. */
    this.memory = Object.freeze(about.plan);
    /** [{ name, shape }] of every weight, in exportWeights() order. */
    this.parameters = Object.freeze(about.parameters.map((p) => Object.freeze(p)));
    /** A mean loss above this (nats) stops the run as diverged. */
    this.divergenceLimit = about.divergenceLimit;
    /** The loss of a uniform guess over the vocabulary, ln(vocab) nats: where an untrained model starts. */
    this.uniformLoss = about.uniformLoss;
    /** An induction score from this on counts as an induction head (formed). */
    this.formedThreshold = about.formedThreshold;
    /** Steps in a step result's recentLoss, and the nats it may rise above bestLoss before the run counts as rising. */
    this.lossWindow = about.lossWindow;
    this.riseLimit = about.riseLimit;
    /** Whether step() scores the heads after every update (the induction task): its induction and previousToken records, and formed. */
    this.recordsHeads = about.recordsHeads;
  }

  /** Runs the method `name` of SIGNATURES on the live handle. */
  _method(name, args, body) {
    const sig = SIGNATURES[name];
    const handle = this._live(sig.name, DISPOSED(sig.name));
    return this._call(sig, args, (values) => body(handle, values));
  }

  /**
   * Runs `count` training steps (default 1).
   * @returns { step, loss, diverged, and per update made: losses, accuracies (Float64Arrays),
   *   induction, previousToken (the best head's scores after it; Float64Arrays for the
   *   induction task, else null); recentLoss, bestLoss, bestAt, rising, worseThanUniform (the
   *   mean loss of the last lossWindow steps against its best and ln(vocab)); formed }
   */
  step(count) {
    const r = this._method('Trainer.step', arguments, (h, [n]) => unwrap(h.step(n)));
    this._formed = r.formed;
    return r;
  }

  /** Loss and accuracy on the fixed evaluation set: { loss, accuracy }. */
  evaluate() {
    return this._method('Trainer.evaluate', arguments, (h) => unwrap(h.evaluate()));
  }

  /**
   * The loss at each position of `examples` (default 32) fresh sequences of the task, `length`
   * tokens long (2..1024): past the training length too, except with positions 'learned'.
   * @returns { length, loss: (number | null)[] (mean nats at each position; null where the task
   *   scores none), scored: number[] (examples scoring each position), mean }
   */
  lossByPosition(spec) {
    return this._method('Trainer.lossByPosition', arguments, (h, [o]) => {
      const r = unwrap(h.lossByPosition(o.length, o.examples));
      const scored = Array.from(r.scored);
      return { length: scored.length, loss: Array.from(r.loss, (x, i) => (scored[i] ? x : null)), scored, mean: r.mean };
    });
  }

  /**
   * Every head's attention weights on `tokens` (1..seqLen token ids).
   * @returns { tokens, patterns: Tensor [layers, heads, n, n] } (rows sum to 1, 0 above the diagonal)
   */
  attention(tokens) {
    return this._method('Trainer.attention', arguments, (h, [ids]) => ({ tokens: Array.from(ids), patterns: fromEngine(unwrap(h.attention(ids))) }));
  }

  /** Per head { layer, head, previousToken, induction } on the probe (README: how each is computed). */
  headScores() {
    return this._method('Trainer.headScores', arguments, (h) => unwrap(h.headScores()));
  }

  /**
   * The model with some heads knocked out: { heads, mode } (ablation.js, docs/api.md).
   * @returns { loss, scoredLoss (evaluation set), positions, scored, tokens, probabilities:
   *   Tensor [n, vocab], heads, mode, baseline: { loss, scoredLoss, probabilities } }
   */
  ablate(spec) {
    return this._method('Trainer.ablate', arguments, (h, [o]) => trainerAblate(h, 'Trainer.ablate', o, this.example));
  }

  /** Q-, K- and V-composition of every earlier head with every later one, and each head's copying score. */
  composition() {
    return this._method('Trainer.composition', arguments, (h) => unwrap(h.composition()));
  }

  _get(name) {
    const fn = `Trainer.${name}`;
    const h = this._live(fn, DISPOSED(fn));
    return this._guard(fn, () => h[name]());
  }

  /** Updates made so far. */
  get steps() { return this._get('steps'); }

  /** { step, layer, head, score }: the first update after which a head's induction score reached formedThreshold (induction task), or null. */
  get formed() {
    this._live('Trainer.formed', DISPOSED('Trainer.formed'));
    return this._formed ? { ...this._formed } : null;
  }

  /** Whether the run stopped because its loss diverged; see divergedAt, divergedLoss. */
  get diverged() { return this._get('diverged'); }

  /** The step whose loss diverged (0 while it has not). */
  get divergedAt() { return this._get('divergedAt'); }

  /** That loss: a number above divergenceLimit, Infinity or NaN. */
  get divergedLoss() { return this._get('divergedLoss'); }

  /**
   * The weights as a plain JSON-able object: { format, version, options, step, parameters:
   * [{ name, shape, dtype, data: base64 of little-endian floats }] }.
   * @param options { dtype: 'float32' (default) or 'float16' }
   */
  exportWeights(options) {
    return this._method('Trainer.exportWeights', arguments, (h, [o]) => {
      const parameters = writeParameters(this.parameters, h.weights(), o.dtype, this._engine.core);
      return { format: WEIGHTS_FORMAT, version: WEIGHTS_VERSION, options: { ...this.options }, step: h.steps(), parameters };
    });
  }
}

/**
 * A trainer holding exported weights: the file's options make the model, its weights replace
 * the initial ones. `extra` may give the sequences or text of a run trained on them.
 * @param w the weights file and `more` the extra, as the reader made them
 */
function loadTrainer(e, w, more) {
  const fn = 'loadTrainer';
  checkWeightsFile(fn, w);
  const o = w.options;
  for (const key of ['sequences', 'text']) if (more[key] !== undefined) o[key] = more[key];
  // The file's tensors against the layout of its options first, from a model that takes no
  // memory until it has weights (model.js): a file that does not fit is refused before the
  // trainer takes its own. Options the engine refuses are named by the trainer below.
  const layout = engineObject(e.core, 'Model');
  let all = null;
  try {
    let about = null;
    try {
      about = unwrap(layout.configure(shapeSpec(o)));
    } catch (_) { /* named by the trainer's own check below */ }
    if (about) all = readParameters(fn, w.parameters, about.parameters, e.core);
  } finally {
    layout.delete();
  }
  const trainer = new Trainer(e, trainerSpec(fn, o), fn);
  let ok = false;
  try {
    if (!all) all = readParameters(fn, w.parameters, trainer.parameters, e.core);
    trainer._guard(fn, () => unwrap(trainer._handle.setWeights(all)));
    ok = true;
  } finally {
    if (!ok) trainer.dispose();
  }
  return trainer;
}

/** Training's bodies for lab.js (each gets the engine and its arguments as the reader made them). */
const TRAINER_BODIES = {
  /** A trainer for a small transformer; every option has a default (lab.TRAINER_DEFAULTS). */
  createTrainer: (e, [o]) => new Trainer(e, trainerSpec('createTrainer', o)),

  /** A trainer from Trainer.exportWeights()'s object (and the sequences or text it trained on). */
  loadTrainer: (e, [w, more]) => loadTrainer(e, w, more),

  /**
   * Gradients of attention: given dOutput = dL/d(output), { dQ, dK, dV, dS, scale }.
   * @param options attention's { causal, validLens, mask, window, scale, scaling, temperature }
   */
  attentionBackward: (e, [Q, K, V, dOutput, o]) => {
    const raw = unwrap(e.core.attentionBackward(Object.assign(new Fields(), { Q, K, V, dOutput, options: o })));
    return { dQ: fromEngine(raw.dQ), dK: fromEngine(raw.dK), dV: fromEngine(raw.dV), dS: fromEngine(raw.dS), scale: raw.scale };
  },
};

module.exports = { TRAINER_BODIES, Trainer };
