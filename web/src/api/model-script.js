'use strict';
// The writer of a model's script (web/src/api/model-file.js reads it): the model object as
// JSON inside code that, loaded by a <script src> (file:// too), registers it on
// globalThis.AttentionLabModels under its name, and required in node is the module's export.
// Used by scripts/train-model.js and scripts/build.js; the kit carries only the reader.

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
const SUFFIX = ');\n';

/** The script text of a model object, opening with `notice` as a comment. */
function modelScript(model, notice) {
  const comment = notice.split('\n').map((line) => ` * ${line}`.trimEnd()).join('\n');
  if (comment.includes('*/')) throw new Error('modelScript: notice holds "*/"; expected text that can sit in a comment');
  return `/*!\n${comment}\n */\n${PREFIX}${JSON.stringify(model)}${SUFFIX}`;
}

module.exports = { modelScript, REGISTER, PREFIX };
