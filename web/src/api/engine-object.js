'use strict';
// An engine object (cpp/bindings/bindings.cpp, object_functions): the module exports
// "<Kind>_new()", "<Kind>_delete(address)" and "<Kind>_<method>(address, ...args)" rather
// than embind classes, whose JavaScript support would add about 6 KB to the script. This
// gives back an object with those methods (and delete()) bound to one new instance, and its
// `address`, for the few plain wasm exports that take it (staging.js).
//
// EngineObject is the JavaScript side of such an object made for a caller (a workspace, a KV
// cache, an experiment): it keeps the engine it was made on, so lab.reset() leaves it working
// on that engine until it is disposed, and reads each method's arguments by its signature.

const { run, stoppedError } = require('./call.js');

function engineObject(core, kind) {
  const address = core[`${kind}_new`]();
  const object = { address };
  for (const key of Object.keys(core)) {
    if (!key.startsWith(`${kind}_`) || key === `${kind}_new`) continue;
    object[key.slice(kind.length + 1)] = core[key].bind(null, address);  // bound: no rest/spread per call
  }
  return object;
}

class EngineObject {
  /**
   * @param e the engine (engine.js makeEngine) to make it on
   * @param kind the object's name in the module ("KVCache")
   * @param label what messages call it ("cache")
   */
  constructor(e, kind, label) {
    this._engine = e;
    this._label = label;
    this._handle = engineObject(e.core, kind);
  }

  /** The handle, or the Error `disposedMessage` when disposed, or the stop of its engine. */
  _live(fn, disposedMessage) {
    if (!this._handle) throw new Error(disposedMessage);
    if (this._engine.stopped) throw stoppedError(fn, this._engine, this._label);
    return this._handle;
  }

  /** Reads `args` by signature `sig` and runs body(values); a stop of the engine is an Error naming sig.name. */
  _call(sig, args, body) {
    const e = this._engine;
    return run(() => e, sig, args, (_, values) => body(values));
  }

  /** body() with a stop of the engine turned into an Error naming `fn` (methods without arguments). */
  _guard(fn, body) {
    try {
      return body();
    } catch (err) {
      if (this._engine.stopped) throw stoppedError(fn, this._engine, this._label);
      throw err;
    }
  }

  /** Frees the engine memory; later calls throw. Calling it again does nothing. */
  dispose() {
    const handle = this._handle;
    if (!handle) return;
    this._handle = null;
    if (this._engine.stopped) return;  // nothing can be freed in a stopped engine
    if (handle.release) handle.release();
    handle.delete();
  }
}

module.exports = { engineObject, EngineObject };
