'use strict';
// lab.loadModel: a trained model for reading a learner's text. Text becomes tokens here
// (tokenizer.js, whose vocabulary ships in the model file); the engine's Model object
// (cpp/bindings/trainer.cpp, attnlab/language_model.hpp) computes every number: attention
// patterns, next-token logits and probabilities.

const { fromEngine, describe } = require('./tensor.js');
const { checkKeys, checkSpec, boolOption, numberOption, numberArg, choiceOption } = require('./options.js');
const { engineObject } = require('./engine-object.js');
const { Tokenizer } = require('./tokenizer.js');
const { readParameters } = require('./weights-file.js');
const { parseModelText, registeredModels, checkModelObject } = require('./model-file.js');

// The model that ships beside the kit (web/model/attention-lab-model.js, dist/ after the build).
const SHIPPED_MODEL = 'wordnet-small';
const SIZES = ['vocab', 'seqLen', 'layers', 'heads', 'dModel', 'mlp'];

function unwrap(result) {
  if (result && typeof result.error === 'string') throw new Error(result.error);
  return result;
}

/** The engine's form of a weights file's model shape (types checked; values are the engine's). */
function shapeSpec(fn, options) {
  const where = `${fn}: weights.options`;
  if (!options || typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`${where} is ${describe(options)}; expected the model's options { vocab, seqLen, layers, ... }`);
  }
  const spec = {};
  for (const key of SIZES) {
    const value = numberOption(where, options, key);
    if (value !== undefined) spec[key] = value;
  }
  const activation = choiceOption(where, options, 'activation', ['gelu', 'relu'], "'gelu' or 'relu'");
  if (activation !== undefined) spec.activation = activation;
  if (options.layerNorm !== undefined) spec.layerNorm = boolOption(where, options, 'layerNorm');
  return spec;
}

/**
 * The model object that `source` names or holds: undefined (the shipped model), a registered
 * name, a model object, or a file's text or bytes (its script or its JSON).
 */
function modelObject(fn, source, shipped) {
  if (source === undefined || source === null) {
    const m = registeredModels()[SHIPPED_MODEL] || (shipped && shipped());
    if (!m) {
      throw new Error(`${fn}: the shipped model is not loaded; expected <script src="attention-lab-model.js"> on the page (beside attention-lab.js), or a model object or file to be given`);
    }
    return m;
  }
  if (typeof source === 'string') {
    const named = registeredModels()[source];
    if (named) return named;
    if (/^[\w.-]+$/.test(source)) {
      const names = Object.keys(registeredModels());
      throw new Error(`${fn}: no model named '${source}' is loaded; expected one of: ${names.length ? names.join(', ') : '(none: add the model\'s script to the page)'}`);
    }
    return parseModelText(fn, source);
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    const bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
    return parseModelText(fn, new TextDecoder().decode(bytes));
  }
  if (typeof source === 'object') return source;
  throw new Error(`${fn}: source is ${describe(source)}; expected nothing (the shipped model), a model's name, object, text or bytes`);
}

class Model {
  /** Use lab.loadModel(source). */
  constructor(core, file, fn) {
    const m = checkModelObject(fn, file);
    const w = checkSpec(`${fn}: weights`, m.weights, ['format', 'version', 'options', 'step', 'parameters']);
    this.tokenizer = new Tokenizer(m.tokenizer, fn);
    const spec = shapeSpec(fn, w.options);
    this._handle = engineObject(core, 'Model');
    let ok = false;
    try {
      const about = unwrap(this._handle.configure(spec));
      if (spec.vocab !== this.tokenizer.size) {
        throw new Error(`${fn}: the tokenizer has ${this.tokenizer.size} pieces but the model's vocab is ${spec.vocab}; expected the same number`);
      }
      unwrap(this._handle.setWeights(readParameters(fn, w.parameters, about.parameters, core)));
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
    /** The model's name, as its file registers it. */
    this.name = m.name;
    /** Where it came from: corpus, licence, training settings, measured scores. */
    this.about = m.about;
    /** Its shape: { vocab, seqLen, layers, heads, dModel, mlp, activation, layerNorm }. */
    this.options = Object.freeze({ ...w.options });
    /** The longest text it reads, in tokens. */
    this.maxTokens = w.options.seqLen;
  }

  _live(fn) {
    if (!this._handle) throw new Error(`${fn}: the model was disposed; expected a model from loadModel that is still live`);
    return this._handle;
  }

  /** The tokens of `text`: [{ id, text, start, end }], each span of the text it reads. */
  tokenize(text) {
    return this.tokenizer.encode(text, 'Model.tokenize').tokens;
  }

  /** The token ids to run: the text's (checked), the last maxTokens of them when truncating. */
  _read(fn, text, options, extra = []) {
    const o = checkKeys(fn, options, ['truncate', ...extra]);
    const truncate = boolOption(fn, o, 'truncate');
    if (typeof text !== 'string') throw new Error(`${fn}: text is ${describe(text)}; expected a string`);
    const all = this.tokenizer.encode(text, fn).tokens;
    if (all.length === 0) throw new Error(`${fn}: text is empty; expected at least one character`);
    if (all.length > this.maxTokens && !truncate) {
      throw new Error(`${fn}: text has ${all.length} tokens; expected at most ${this.maxTokens} (the model's context), or { truncate: true } to read the last ${this.maxTokens}`);
    }
    const dropped = Math.max(0, all.length - this.maxTokens);
    const tokens = dropped ? all.slice(dropped) : all;
    return { o, tokens, ids: Float64Array.from(tokens, (t) => t.id), truncated: dropped };
  }

  /**
   * Every head's attention on `text`.
   * @param options { truncate = false }: keep the last maxTokens tokens of a longer text
   *   (otherwise it is an error)
   * @returns { tokens: string[], ids, spans: [start, end][], attentions: [layers][heads][n][n]
   *   (rows sum to 1; 0 above the diagonal: the model is causal), causal: true, truncated:
   *   tokens dropped from the start }
   */
  attention(text, options) {
    const fn = 'Model.attention';
    const handle = this._live(fn);
    const r = this._read(fn, text, options);
    const patterns = fromEngine(unwrap(handle.attention(r.ids)));
    return {
      tokens: r.tokens.map((t) => t.text),
      ids: r.tokens.map((t) => t.id),
      spans: r.tokens.map((t) => [t.start, t.end]),
      attentions: patterns.toArray(),
      causal: true,
      truncated: r.truncated,
    };
  }

  /**
   * The most probable next tokens after `text`.
   * @param options { top = 5 (1..100), truncate = false }
   * @returns { tokens: string[], next: [{ token, id, probability }] (most probable first),
   *   truncated }
   */
  predict(text, options) {
    const fn = 'Model.predict';
    const handle = this._live(fn);
    const r = this._read(fn, text, options, ['top']);
    const raw = unwrap(handle.predict(r.ids, numberArg(fn, r.o, 'top', 5)));
    const next = raw.ids.map((id, i) => ({ token: this.tokenizer.pieces[id], id, probability: raw.probabilities[i] }));
    return { tokens: r.tokens.map((t) => t.text), next, truncated: r.truncated };
  }

  /** The logits of the token after `text` (Float32Array [vocab]); options { truncate }. */
  logits(text, options) {
    const fn = 'Model.logits';
    const handle = this._live(fn);
    return unwrap(handle.logits(this._read(fn, text, options).ids));
  }

  /**
   * Every head's scores on its own attention over `text` (the engine's head scores; prefix
   * matching uses the token ids, so a repeated phrase shows the induction heads).
   * @param options { truncate = false }
   * @returns [{ layer, head, entropy, previousToken, firstToken, diagonal, prefixMatching }],
   *   null where a score has no row to average over (e.g. prefix matching on text that repeats
   *   no token)
   */
  headScores(text, options) {
    const fn = 'Model.headScores';
    const handle = this._live(fn);
    return unwrap(handle.headScores(this._read(fn, text, options).ids));
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
 * @param shipped () => the shipped model's object where the environment has one (node reads
 *   web/model/attention-lab-model.js); pages register it with its script instead
 */
function modelApi(core, shipped) {
  return {
    /**
     * A trained model with its tokenizer.
     * @param source nothing (the shipped model), a loaded model's name, a model object, or a
     *   model file's text or bytes
     */
    loadModel(source) {
      return new Model(core, modelObject('loadModel', source, shipped), 'loadModel');
    },
  };
}

module.exports = { modelApi, Model, SHIPPED_MODEL };
