'use strict';
// loadAttentionLab for any environment, given the engine factory and a source of the wasm
// bytes, handed to the glue through emscripten's instantiateWasm hook, so the glue never
// fetches. Bytes in hand (node reads its .wasm file) are compiled and instantiated at once:
// in node, WebAssembly.compile (even started before the JavaScript is loaded, to overlap)
// and an asynchronous read each made the start 2-4 ms slower (node scripts/bench-startup.js).
// A promise of bytes (browsers decode the embedded copy) goes through WebAssembly.instantiate,
// which compiles off the main thread. One attempt per loader: every caller (several widgets
// on a page) shares the engine, or the same rejection.

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
          try {
            const bytes = getBytes();
            if (bytes && typeof bytes.then === 'function') {
              bytes
                .then((b) => WebAssembly.instantiate(b, imports))
                .then((r) => receiveInstance(r.instance, r.module))
                .catch(fail);
            } else {
              const module = new WebAssembly.Module(bytes);
              const instance = new WebAssembly.Instance(module, imports);
              receiveInstance(instance, module);
              return instance.exports;
            }
          } catch (err) {
            fail(err);
          }
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
 * @param getBytes () => wasm bytes (Uint8Array/ArrayBuffer: compiled synchronously) or a promise of them
 * @param hooks what createLab takes from the environment (lab.js)
 */
function makeLoader(createCore, getBytes, hooks) {
  let pending = null;
  return function loadAttentionLab() {
    if (!pending) pending = startEngine(createCore, getBytes).then((core) => createLab(core, hooks));
    return pending;
  };
}

module.exports = { makeLoader, createLab };
