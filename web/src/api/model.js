'use strict';
// lab.loadModel: a trained model for reading a learner's text. Text becomes tokens here
// (tokenizer.js, whose vocabulary ships in the model file); the engine's Model object
// (cpp/bindings/trainer.cpp, attnlab/language_model.hpp) computes every number: attention
// patterns, next-token logits and probabilities.

const { fromEngine, describe, clip } = require('./tensor.js');
const { readValue, object, source, own } = require('./options.js');
const { SIGNATURES, WEIGHTS_FILE } = require('./signatures.js');
const { EngineObject } = require('./engine-object.js');
const { unwrap } = require('./call.js');
const { Tokenizer } = require('./tokenizer.js');
const { readParameters, checkWeightsFile, shapeSpec } = require('./weights-file.js');
const { modelAblate } = require('./ablation.js');
const { parseModelText, registeredModels, checkModelObject } = require('./model-file.js');

// The model that ships beside the kit (web/model/attention-lab-model.js, dist/ after the build).
const SHIPPED_MODEL = 'wordnet-small';
const WEIGHTS = object(WEIGHTS_FILE, { required: true });
// A model file's outer fields, read as own properties (model-file.js and tokenizer.js check
// their values; the weights are read by WEIGHTS).
const MODEL_FILE = object({
  format: source(), version: source(), name: source(), about: source(),
  tokenizer: object({ kind: source(), unknown: source(), alphabet: source(), merges: source() }, { required: true, nested: true }),
  weights: source(),
}, { required: true });
const DISPOSED = (fn) => `${fn}: the model was disposed; expected a model from loadModel that is still live`;

/**
 * The model object that `source` names or holds: undefined (the shipped model), a registered
 * name, a model object, or a file's text or bytes (its script or its JSON).
 */
function modelObject(fn, source, shipped) {
  if (source === undefined || source === null) {
    const m = own(registeredModels(), SHIPPED_MODEL) || (shipped && shipped());
    if (!m) {
      throw new Error(`${fn}: the shipped model is not loaded; expected <script src="attention-lab-model.js"> on the page (beside attention-lab.js), or a model object or file to be given`);
    }
    return m;
  }
  if (typeof source === 'string') {
    const named = own(registeredModels(), source);
    if (named) return named;
    if (/^[\w.-]+$/.test(source)) {
      const names = Object.keys(registeredModels());
      throw new Error(`${fn}: no model named '${clip(source)}' is loaded; expected one of: ${names.length ? names.join(', ') : '(none: add the model\'s script to the page)'}`);
    }
    return parseModelText(fn, source);
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    let bytes;
    try {
      bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
    } catch (_) {
      throw new Error(`${fn}: source's ArrayBuffer is detached (transferred); expected the bytes of a model file`);
    }
    return parseModelText(fn, new TextDecoder().decode(bytes));
  }
  if (typeof source === 'object') return source;
  throw new Error(`${fn}: source is ${describe(source)}; expected nothing (the shipped model), a model's name, object, text or bytes`);
}

class Model extends EngineObject {
  /** Use lab.loadModel(source). @param e the engine; @param file a model object */
  constructor(e, file, fn) {
    super(e, 'Model', 'model');
    let ok = false;
    try {
      if (!file || typeof file !== 'object' || Array.isArray(file)) checkModelObject(fn, file);
      const m = checkModelObject(fn, readValue(MODEL_FILE, file, fn, 'model', e.ctx));
      const w = checkWeightsFile(fn, readValue(WEIGHTS, m.weights, fn, 'weights', e.ctx), 'weights.');
      this.tokenizer = new Tokenizer(m.tokenizer, fn);
      const spec = shapeSpec(w.options);
      const about = this._guard(fn, () => unwrap(this._handle.configure(spec)));
      if (spec.vocab !== this.tokenizer.size) {
        throw new Error(`${fn}: the tokenizer has ${this.tokenizer.size} pieces but the model's vocab is ${spec.vocab}; expected the same number`);
      }
      const all = readParameters(fn, w.parameters, about.parameters, e.core);
      this._guard(fn, () => unwrap(this._handle.setWeights(all)));
      /** The model's name, as its file registers it. */
      this.name = m.name;
      /** Where it came from: corpus, licence, training settings, measured scores. */
      this.about = m.about;
      /** Its shape: { vocab, seqLen, layers, heads, dModel, mlp, activation, layerNorm }. */
      this.options = Object.freeze(Object.assign({}, w.options));
      /** The longest text it reads, in tokens. */
      this.maxTokens = w.options.seqLen;
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
  }

  /** Runs the method `name` of SIGNATURES on the live handle. */
  _method(name, args, body) {
    const sig = SIGNATURES[name];
    const handle = this._live(sig.name, DISPOSED(sig.name));
    return this._call(sig, args, (values) => body(handle, values, sig.name));
  }

  /** The tokens of `text`: [{ id, text, start, end }], each span of the text it reads. */
  tokenize(text) {
    return this._method('Model.tokenize', arguments, (h, [t], fn) => this.tokenizer.encode(t, fn).tokens);
  }

  /**
   * The token ids to run: the text's, the last maxTokens of them when truncating (only those
   * are built: tokenizer.last). `name`: the argument's name in the messages.
   */
  _read(fn, text, truncate, name = 'text') {
    const { tokens, count } = this.tokenizer.last(text, this.maxTokens, fn);
    if (count === 0) throw new Error(`${fn}: ${name} is empty; expected at least one character`);
    if (count > this.maxTokens && !truncate) {
      throw new Error(`${fn}: ${name} has ${count} tokens; expected at most ${this.maxTokens} (the model's context), or { truncate: true } to read the last ${this.maxTokens}`);
    }
    return { tokens, ids: Float64Array.from(tokens, (t) => t.id), truncated: count - tokens.length };
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
    return this._method('Model.attention', arguments, (h, [t, o], fn) => {
      const r = this._read(fn, t, o.truncate);
      const patterns = fromEngine(unwrap(h.attention(r.ids)));
      return {
        tokens: r.tokens.map((x) => x.text),
        ids: r.tokens.map((x) => x.id),
        spans: r.tokens.map((x) => [x.start, x.end]),
        attentions: patterns.toArray(),
        causal: true,
        truncated: r.truncated,
      };
    });
  }

  /**
   * The most probable next tokens after `text`.
   * @param options { top = 5 (1..100), truncate = false }
   * @returns { tokens: string[], next: [{ token, id, probability }] (most probable first),
   *   truncated }
   */
  predict(text, options) {
    return this._method('Model.predict', arguments, (h, [t, o], fn) => {
      const r = this._read(fn, t, o.truncate);
      const raw = unwrap(h.predict(r.ids, o.top));
      const next = raw.ids.map((id, i) => ({ token: this.tokenizer.pieces[id], id, probability: raw.probabilities[i] }));
      return { tokens: r.tokens.map((x) => x.text), next, truncated: r.truncated };
    });
  }

  /** The logits of the token after `text` (Float32Array [vocab]); options { truncate }. */
  logits(text, options) {
    return this._method('Model.logits', arguments, (h, [t, o], fn) => unwrap(h.logits(this._read(fn, t, o.truncate).ids)));
  }

  /**
   * Every head's scores on its own attention over `text` (the engine's head scores; prefix
   * matching uses the token ids, so a repeated phrase shows the induction heads).
   * @param options { truncate = false }
   * @returns [{ layer, head, entropy, previousToken, firstToken, diagonal, prefixMatching, prefixMatchingApart }],
   *   null where a score has no row to average over (e.g. prefix matching on text that repeats
   *   no token)
   */
  headScores(text, options) {
    return this._method('Model.headScores', arguments, (h, [t, o], fn) => unwrap(h.headScores(this._read(fn, t, o.truncate).ids)));
  }

  /**
   * `text` read with some heads knocked out: { heads, mode, meanOver, top, truncate }
   * (ablation.js, docs/api.md).
   * @returns { tokens, loss, repeatedLoss, positions, repeated, next, probabilities, heads,
   *   mode, truncated, baseline: { loss, repeatedLoss, next, probabilities } }
   */
  ablate(text, spec) {
    return this._method('Model.ablate', arguments, (h, [t, o], fn) => modelAblate(h, fn, this, this._read(fn, t, o.truncate), o, t));
  }

  /** Q-, K- and V-composition of every earlier head with every later one, and each head's copying score. */
  composition() {
    return this._method('Model.composition', arguments, (h) => unwrap(h.composition()));
  }
}

/**
 * lab.loadModel's body: a trained model with its tokenizer.
 * @param e the engine, whose `shippedModel` (() => the shipped model's object) is where the
 *   environment can read it (node); pages register it with its script instead
 * @param source nothing (the shipped model), a loaded model's name, a model object, or a
 *   model file's text or bytes
 */
function loadModel(e, [source]) {
  return new Model(e, modelObject('loadModel', source, e.shippedModel), 'loadModel');
}

module.exports = { loadModel, Model, SHIPPED_MODEL };
