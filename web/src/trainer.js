'use strict';
// Training in the engine (cpp/src/trainer.cpp): createTrainer, loadTrainer, attentionBackward.
// Like kv-cache.js, every option is read and checked for its JavaScript type before the engine
// object exists, and a failed construction frees it. Values (sizes, ranges, token ids, the
// learning rate) are the engine's rules; token lists cross as Float64Arrays so that 3.5 or
// 2^32 + 1 reach the engine's check instead of being truncated on the way.

const { Tensor, fromEngine, describe } = require('./tensor.js');
const { checkKeys, checkSpec, boolOption, numberOption, choiceOption, attentionOptions } = require('./options.js');
const { engineObject } = require('./engine-object.js');
const { readParameters, writeParameters } = require('./weights-file.js');

const TASKS = ['induction', 'copy', 'reverse', 'sort', 'sequences', 'text'];
const OPTIONS = ['task', 'vocab', 'seqLen', 'layers', 'heads', 'dModel', 'mlp', 'activation', 'layerNorm', 'batch',
  'lr', 'weightDecay', 'warmupSteps', 'decaySteps', 'minLr', 'seed', 'sequences', 'text', 'scoreFrom', 'repeats'];
const NUMBERS = ['vocab', 'seqLen', 'layers', 'heads', 'dModel', 'mlp', 'batch', 'lr', 'weightDecay', 'warmupSteps',
  'decaySteps', 'minLr', 'seed', 'scoreFrom', 'repeats'];
// Past any corpus this kit trains on (16 M tokens), and what stops a runaway array early.
const MAX_TOKENS = 1 << 24;
const WEIGHTS_FORMAT = 'attention-lab-weights';
const WEIGHTS_VERSION = 1;

/** An array-like of numbers (an array or a typed array) as a Float64Array, types checked. */
function tokenArray(fn, key, value, into, at) {
  const ok = Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
  if (!ok) throw new Error(`${fn}: ${key} is ${describe(value)}; expected an array of token ids`);
  if (!into && value.length > MAX_TOKENS) throw new Error(`${fn}: ${key} has ${value.length} tokens; expected at most ${MAX_TOKENS}`);
  const out = into || new Float64Array(value.length);
  const start = at || 0;
  for (let i = 0; i < value.length; i++) {
    const x = value[i];
    if (typeof x !== 'number') throw new Error(`${fn}: ${key}[${i}] is ${describe(x)}; expected a token id (a number)`);
    out[start + i] = x;
  }
  return out;
}

/** sequences: an array of token arrays, as { lengths, tokens } Float64Arrays. */
function sequenceArrays(fn, value) {
  if (!Array.isArray(value)) throw new Error(`${fn}: sequences is ${describe(value)}; expected an array of token arrays`);
  let total = 0;
  for (let i = 0; i < value.length; i++) {
    const s = value[i];
    const ok = Array.isArray(s) || (ArrayBuffer.isView(s) && !(s instanceof DataView));
    if (!ok) throw new Error(`${fn}: sequences[${i}] is ${describe(s)}; expected an array of token ids`);
    total += s.length;
    if (total > MAX_TOKENS) throw new Error(`${fn}: sequences hold more than ${MAX_TOKENS} tokens; expected fewer`);
  }
  const lengths = new Float64Array(value.length), tokens = new Float64Array(total);
  let at = 0;
  for (let i = 0; i < value.length; i++) {
    tokenArray(fn, `sequences[${i}]`, value[i], tokens, at);
    lengths[i] = value[i].length;
    at += value[i].length;
  }
  return { lengths, tokens };
}

/** The engine's form of createTrainer's options (types checked; values are the engine's). */
function trainerSpec(fn, options) {
  const o = checkSpec(fn, options === undefined ? {} : options, OPTIONS);
  const spec = {};
  for (const key of NUMBERS) {
    const value = numberOption(fn, o, key);
    if (value !== undefined) spec[key] = value;
  }
  const task = choiceOption(fn, o, 'task', TASKS, TASKS.map((t) => `'${t}'`).join(', '));
  if (task !== undefined) spec.task = task;
  const activation = choiceOption(fn, o, 'activation', ['gelu', 'relu'], "'gelu' or 'relu'");
  if (activation !== undefined) spec.activation = activation;
  if (o.layerNorm !== undefined) spec.layerNorm = boolOption(fn, o, 'layerNorm');
  const needs = task === 'sequences' ? 'sequences' : task === 'text' ? 'text' : null;
  for (const key of ['sequences', 'text']) {
    if (o[key] === undefined || o[key] === null) continue;
    if (key !== needs) throw new Error(`${fn}: ${key} is given but task is '${task || 'induction'}'; expected task: '${key}' with it`);
  }
  if (needs && (o[needs] === undefined || o[needs] === null)) {
    throw new Error(`${fn}: task '${needs}' needs the ${needs} option; expected ${needs === 'text' ? 'an array of token ids' : 'an array of token arrays'}`);
  }
  if (needs === 'sequences') spec.sequences = sequenceArrays(fn, o.sequences);
  if (needs === 'text') spec.text = tokenArray(fn, 'text', o.text);
  return spec;
}

function unwrap(result) {
  if (result && typeof result.error === 'string') throw new Error(result.error);
  return result;
}

class Trainer {
  /** Use lab.createTrainer(options) or lab.loadTrainer(weights). */
  constructor(core, spec, fn = 'createTrainer') {
    this._core = core;
    this._handle = engineObject(core, 'Trainer');
    let ok = false;
    try {
      unwrap(this._handle.configure(spec, fn));
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
    this._fn = fn;
  }

  _live(fn) {
    if (!this._handle) throw new Error(`${fn}: the trainer was disposed; expected a trainer from createTrainer that is still live`);
    return this._handle;
  }

  /**
   * Runs `count` training steps (default 1).
   * @returns { step, loss, losses: Float64Array (one per update made), diverged }
   */
  step(count = 1) {
    const fn = 'Trainer.step';
    const handle = this._live(fn);
    if (typeof count !== 'number') throw new Error(`${fn}: count is ${describe(count)}; expected a number of steps`);
    return unwrap(handle.step(count));
  }

  /** Loss and accuracy on the fixed evaluation set: { loss, accuracy }. */
  evaluate() {
    return unwrap(this._live('Trainer.evaluate').evaluate());
  }

  /**
   * Every head's attention weights on `tokens` (1..seqLen token ids).
   * @returns { tokens, patterns: Tensor [layers, heads, n, n] } (rows sum to 1, 0 above the diagonal)
   */
  attention(tokens) {
    const fn = 'Trainer.attention';
    const handle = this._live(fn);
    const ids = tokenArray(fn, 'tokens', tokens);
    return { tokens: Array.from(ids), patterns: fromEngine(unwrap(handle.attention(ids))) };
  }

  /** Per head { layer, head, previousToken, induction } on the probe (README: how each is computed). */
  headScores() {
    return unwrap(this._live('Trainer.headScores').headScores());
  }

  /** Updates made so far. */
  get steps() { return this._live('Trainer.steps').steps(); }

  /** Whether the run stopped because its loss diverged; see divergedAt, divergedLoss. */
  get diverged() { return this._live('Trainer.diverged').diverged(); }

  /** The step whose loss diverged (0 while it has not). */
  get divergedAt() { return this._live('Trainer.divergedAt').divergedAt(); }

  /** That loss: a number above divergenceLimit, Infinity or NaN. */
  get divergedLoss() { return this._live('Trainer.divergedLoss').divergedLoss(); }

  /**
   * The weights as a plain JSON-able object: { format, version, options, step, parameters:
   * [{ name, shape, dtype, data: base64 of little-endian floats }] }.
   * @param options { dtype: 'float32' (default) or 'float16' }
   */
  exportWeights(options) {
    const fn = 'Trainer.exportWeights';
    const handle = this._live(fn);
    const o = checkKeys(fn, options, ['dtype']);
    const dtype = choiceOption(fn, o, 'dtype', ['float32', 'float16'], "'float32' or 'float16' (half the size, rounded to the nearest half)") || 'float32';
    const parameters = writeParameters(this.parameters, handle.weights(), dtype, this._core);
    return { format: WEIGHTS_FORMAT, version: WEIGHTS_VERSION, options: { ...this.options }, step: handle.steps(), parameters };
  }

  /** Frees the engine memory; later calls throw. Calling it again does nothing. */
  dispose() {
    if (this._handle) {
      this._handle.release();
      this._handle.delete();
      this._handle = null;
    }
  }
}

/**
 * A trainer holding exported weights: the file's options make the model, its weights replace
 * the initial ones. `extra` may give the sequences or text of a run trained on them.
 */
function loadTrainer(core, weights, extra) {
  const fn = 'loadTrainer';
  const w = checkSpec(fn, weights, ['format', 'version', 'options', 'step', 'parameters']);
  if (w.format !== WEIGHTS_FORMAT) {
    throw new Error(`${fn}: format is ${JSON.stringify(w.format) || describe(w.format)}; expected '${WEIGHTS_FORMAT}' (a file from Trainer.exportWeights)`);
  }
  if (w.version !== WEIGHTS_VERSION) {
    throw new Error(`${fn}: version is ${JSON.stringify(w.version) || describe(w.version)}; expected ${WEIGHTS_VERSION} (this version of attention-lab reads version ${WEIGHTS_VERSION} files)`);
  }
  const saved = checkSpec(`${fn}: options`, w.options, [...OPTIONS]);
  const o = { ...saved };
  const more = checkSpec(fn, extra === undefined ? {} : extra, ['sequences', 'text']);
  for (const key of ['sequences', 'text']) if (more[key] !== undefined) o[key] = more[key];
  const trainer = new Trainer(core, trainerSpec(fn, o), fn);
  let ok = false;
  try {
    const all = readParameters(fn, w.parameters, trainer.parameters, core);
    unwrap(trainer._handle.setWeights(all));
    ok = true;
  } finally {
    if (!ok) trainer.dispose();
  }
  return trainer;
}

function trainerApi(core, { input, ctx }) {
  let defaults = null;
  return {
    /** A trainer for a small transformer; every option has a default (lab.TRAINER_DEFAULTS). */
    createTrainer(options) {
      return new Trainer(core, trainerSpec('createTrainer', options));
    },

    /** A trainer from Trainer.exportWeights()'s object (and the sequences or text it trained on). */
    loadTrainer(weights, extra) {
      return loadTrainer(core, weights, extra);
    },

    /** createTrainer's defaults, which the widget shares. */
    get TRAINER_DEFAULTS() {
      return defaults || (defaults = Object.freeze(core.trainerDefaults()));
    },

    /**
     * Gradients of attention: given dOutput = dL/d(output), { dQ, dK, dV, dS, scale }.
     * @param options attention's { causal, validLens, mask, window, scale, scaling, temperature }
     */
    attentionBackward(Q, K, V, dOutput, options) {
      const fn = 'attentionBackward';
      const { options: o } = attentionOptions(fn, options, ctx);
      const raw = unwrap(core.attentionBackward({
        Q: input(Q, fn, 'Q'), K: input(K, fn, 'K'), V: input(V, fn, 'V'), dOutput: input(dOutput, fn, 'dOutput'), options: o,
      }));
      return { dQ: fromEngine(raw.dQ), dK: fromEngine(raw.dK), dV: fromEngine(raw.dV), dS: fromEngine(raw.dS), scale: raw.scale };
    },
  };
}

module.exports = { trainerApi, Trainer, Tensor };
