'use strict';
// loadAttentionLab for any environment, given the engine factory and a source of the wasm
// bytes, handed to the glue through emscripten's instantiateWasm hook, so the glue never
// fetches. Bytes in hand (node reads its .wasm file) are compiled and instantiated at once:
// in node, WebAssembly.compile (even started before the JavaScript is loaded, to overlap)
// and an asynchronous read each made the start 2-4 ms slower (node scripts/bench-startup.js).
// A promise of bytes (browsers decode the embedded copy) goes through WebAssembly.instantiate,
// which compiles off the main thread. One attempt per loader: every caller (several widgets
// on a page) shares the engine, or the same rejection.

const { createLab } = require('./api/lab.js');
const { loadError, loadErrorCode } = require('./load-error.js');

function quiet() {}

// What every instance of the glue is given: the engine never writes to the page's console;
// failures reach the caller instead.
function moduleArgs(instantiateWasm) {
  return { print: quiet, printErr: quiet, instantiateWasm };
}

/**
 * Starts the engine: a promise of { module, restart }, `restart()` making another instance
 * from the same compiled code, synchronously (the glue finishes its start inside the call when
 * the instance is handed over at once), with fresh memory: lab.reset() and a stopped engine use it.
 */
function startEngine(createCore, getBytes) {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') {
    return Promise.reject(loadError('wasm-unsupported'));
  }
  let compiled = null;
  const restart = () => {
    const module = moduleArgs((imports, receiveInstance) => {
      const instance = new WebAssembly.Instance(compiled, imports);
      receiveInstance(instance, compiled);
      return instance.exports;
    });
    Promise.resolve(createCore(module)).catch(quiet);  // the module object is ready on return
    if (typeof module.maxElements !== 'function') throw new Error('reset: the engine did not start again');
    return module;
  };
  return new Promise((resolve, reject) => {
    const fail = (err) => reject(loadError(loadErrorCode(err), err));
    try {
      createCore(moduleArgs((imports, receiveInstance) => {
        try {
          const bytes = getBytes();
          if (bytes && typeof bytes.then === 'function') {
            bytes
              .then((b) => WebAssembly.instantiate(b, imports))
              .then((r) => {
                compiled = r.module;
                receiveInstance(r.instance, r.module);
              })
              .catch(fail);
          } else {
            compiled = new WebAssembly.Module(bytes);
            const instance = new WebAssembly.Instance(compiled, imports);
            receiveInstance(instance, compiled);
            return instance.exports;
          }
        } catch (err) {
          fail(err);
        }
        return {};
      })).then((module) => resolve({ module, restart }), fail);
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
    if (!pending) pending = startEngine(createCore, getBytes).then(({ module, restart }) => createLab(module, restart, hooks));
    return pending;
  };
}

module.exports = { makeLoader, createLab };
