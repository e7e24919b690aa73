'use strict';
// A model file: a trained model with its tokenizer, as one object
//   { format: 'attention-lab-model', version: 1, name, about, tokenizer, weights }
// (tokenizer: web/src/api/tokenizer.js's vocabulary; weights: a weights file, as from
// Trainer.exportWeights, whose entries may be float16; about: where it came from), and the
// script that carries it to a page without fetch: loaded by a <script src> (file:// too), it
// registers the object on globalThis.AttentionLabModels under its name; required in node, it
// is the module's export. This is its reader; its writer (not in the kit) is model-script.js.

const { describe, quote } = require('./tensor.js');

const MODEL_FORMAT = 'attention-lab-model';
const MODEL_VERSION = 1;
// Where the JSON starts and ends in any version of the script (model-script.js writes it).
const OPEN = '\n})(';
const SUFFIX = ');\n';

/**
 * A model object from a file's text: the script model-script.js writes, or the bare JSON object.
 * @throws Error naming `fn` when the text is neither
 */
function parseModelText(fn, text) {
  const trimmed = text.trim();
  let json = trimmed;
  if (!trimmed.startsWith('{')) {
    const at = text.indexOf(OPEN);
    const end = text.lastIndexOf(SUFFIX.trim());
    if (at < 0 || end < at) {
      throw new Error(`${fn}: the text is neither a model's JSON nor its script (attention-lab-model.js); expected one of them`);
    }
    json = text.slice(at + OPEN.length, end);
  }
  try {
    return JSON.parse(json);
  } catch (err) {
    throw new Error(`${fn}: the model's JSON does not parse (${err.message}); expected the text of a model file`);
  }
}

const hasOwn = Object.prototype.hasOwnProperty;
const NONE = Object.freeze(Object.create(null));

/**
 * The model scripts that pages loaded: { name: model }, globalThis's own AttentionLabModels
 * when it is a plain or null-prototype object (read its entries as own properties).
 */
function registeredModels() {
  const all = hasOwn.call(globalThis, 'AttentionLabModels') ? globalThis.AttentionLabModels : null;
  const proto = all && typeof all === 'object' ? Object.getPrototypeOf(all) : undefined;
  return proto === null || proto === Object.prototype ? all : NONE;
}

/** Checks a model object's outer fields; the tokenizer and weights are checked by their readers. */
function checkModelObject(fn, m) {
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error(`${fn}: the model is ${describe(m)}; expected a model object { format: '${MODEL_FORMAT}', ... }`);
  if (m.format !== MODEL_FORMAT) {
    throw new Error(`${fn}: format is ${quote(m.format)}; expected '${MODEL_FORMAT}' (a model file, such as attention-lab-model.js)`);
  }
  if (m.version !== MODEL_VERSION) {
    throw new Error(`${fn}: version is ${quote(m.version)}; expected ${MODEL_VERSION} (this version of attention-lab reads version ${MODEL_VERSION} model files)`);
  }
  if (typeof m.name !== 'string' || m.name === '') throw new Error(`${fn}: name is ${describe(m.name)}; expected the model's name (a non-empty string)`);
  if (!m.weights || typeof m.weights !== 'object') throw new Error(`${fn}: weights is ${describe(m.weights)}; expected a weights file object`);
  return m;
}

module.exports = { parseModelText, registeredModels, checkModelObject, MODEL_FORMAT, MODEL_VERSION };
