'use strict';
// An engine object (cpp/bindings/bindings.cpp, object_functions): the module exports
// "<Kind>_new()", "<Kind>_delete(address)" and "<Kind>_<method>(address, ...args)" rather
// than embind classes, whose JavaScript support would add about 6 KB to the script. This
// gives back an object with those methods (and delete()) bound to one new instance, and its
// `address`, for the few plain wasm exports that take it (staging.js).

function engineObject(core, kind) {
  const address = core[`${kind}_new`]();
  const object = { address };
  for (const key of Object.keys(core)) {
    if (!key.startsWith(`${kind}_`) || key === `${kind}_new`) continue;
    object[key.slice(kind.length + 1)] = core[key].bind(null, address);  // bound: no rest/spread per call
  }
  return object;
}

module.exports = { engineObject };
