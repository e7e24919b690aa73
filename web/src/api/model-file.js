'use strict';
// A model file: a trained model with its tokenizer, as one object
//   { format: 'attention-lab-model', version: 1, name, about, tokenizer, weights }
// (tokenizer: web/src/api/tokenizer.js's vocabulary; weights: a weights file, as from
// Trainer.exportWeights, whose entries may be float16; about: where it came from), and the
// script that carries it to a page without fetch: loaded by a <script src> (file:// too), it
// registers the object on globalThis.AttentionLabModels under its name; required in node, it
// is the module's export. The writer and the reader of that script are both here.

const { describe, quote } = require('./tensor.js');

const MODEL_FORMAT = 'attention-lab-model';
const MODEL_VERSION = 1;
// How a model's script (and the module beside the kit, scripts/build.js) registers it: on an
// own property of globalThis, a null-prototype map, so nothing set on Object.prototype is read
// as the registry or as a model in it. A page element of that id (window's named access) or
// any other object there is not ours to extend: it is replaced.
const REGISTER = "var has = Object.prototype.hasOwnProperty, all = has.call(globalThis, 'AttentionLabModels') ? globalThis.AttentionLabModels : null;\n"
  + "if (!all || typeof all !== 'object' || (Object.getPrototypeOf(all) !== null && Object.getPrototypeOf(all) !== Object.prototype)) Object.defineProperty(globalThis, 'AttentionLabModels', { value: all = Object.create(null), writable: true, configurable: true });\n"
  + 'Object.defineProperty(all, model.name, { value: model, writable: true, enumerable: true, configurable: true });\n';
// The script: a comment, then PREFIX, the object's JSON, SUFFIX.
const PREFIX = '(function (model) {\n'
  + "  if (typeof module === 'object' && module && module.exports) { module.exports = model; return; }\n"
  + REGISTER.replace(/^/gm, '  ').trimEnd() + '\n'
  + '})(';
// Where the JSON starts in any version of the script (its prefix ends so).
const OPEN = '\n})(';
const SUFFIX = ');\n';

/** The script text of a model object, opening with `notice` as a comment. */
function modelScript(model, notice) {
  const comment = notice.split('\n').map((line) => ` * ${line}`.trimEnd()).join('\n');
  if (comment.includes('*/')) throw new Error('modelScript: notice holds "*/"; expected text that can sit in a comment');
  return `/*!\n${comment}\n */\n${PREFIX}${JSON.stringify(model)}${SUFFIX}`;
}

/**
 * A model object from a file's text: the script modelScript writes, or the bare JSON object.
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

module.exports = { REGISTER, modelScript, parseModelText, registeredModels, checkModelObject, MODEL_FORMAT, MODEL_VERSION };
