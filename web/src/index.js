'use strict';
// loadAttentionLab for any environment, given the engine factory and a source of the wasm
// bytes. The bytes are compiled with WebAssembly.instantiate through emscripten's
// instantiateWasm hook, so the glue never fetches. One attempt per loader: every caller
// (several widgets on a page) shares the engine, or the same rejection.

const { createLab } = require('./lab.js');
const { loadError, loadErrorCode } = require('./load-error.js');

function quiet() {}

function startEngine(createCore, getBytes) {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') {
    return Promise.reject(loadError('wasm-unsupported'));
  }
  return new Promise((resolve, reject) => {
    const fail = (err) => reject(loadError(loadErrorCode(err), err));
    try {
      createCore({
        // The engine never writes to the page's console; failures reach the caller instead.
        print: quiet,
        printErr: quiet,
        instantiateWasm(imports, receiveInstance) {
          Promise.resolve()
            .then(getBytes)
            .then((bytes) => WebAssembly.instantiate(bytes, imports))
            .then((r) => receiveInstance(r.instance, r.module))
            .catch(fail);
          return {};
        },
      }).then(resolve, fail);
    } catch (err) {
      fail(err);
    }
  });
}

/**
 * @param createCore the emscripten factory (MODULARIZE build of cpp/bindings)
 * @param getBytes () => wasm bytes (Uint8Array/ArrayBuffer) or a promise of them
 */
function makeLoader(createCore, getBytes) {
  let pending = null;
  return function loadAttentionLab() {
    if (!pending) pending = startEngine(createCore, getBytes).then(createLab);
    return pending;
  };
}

module.exports = { makeLoader, createLab };
