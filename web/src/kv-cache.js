'use strict';
// The decoding cache over cpp/src/kv_cache.cpp: append a token's keys and values, attend the
// newest query over every cached token. Like workspace.js, every argument is read and checked
// before the engine object exists, and a failed construction frees it.

const { fromEngine } = require('./tensor.js');
const { checkSpec, numberArg, numberOption } = require('./options.js');
const { engineObject } = require('./engine-object.js');

class KVCache {
  constructor(core, spec, { input }) {
    const fn = 'createKVCache';
    const o = checkSpec(fn, spec, ['heads', 'kvHeads', 'dHead', 'maxLength', 'scale']);
    const heads = numberArg(fn, o, 'heads');
    const kvHeads = numberArg(fn, o, 'kvHeads', heads);
    const dHead = numberArg(fn, o, 'dHead');
    const maxLength = numberArg(fn, o, 'maxLength');
    const scale = numberOption(fn, o, 'scale');
    this._input = input;
    this._handle = engineObject(core, 'KVCache');
    let ok = false;
    try {
      const result = this._handle.configure(heads, kvHeads, dHead, maxLength, scale !== undefined, scale === undefined ? 0 : scale);
      if (typeof result.error === 'string') throw new Error(result.error);
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
    this.heads = heads;
    this.kvHeads = kvHeads;
    this.dHead = dHead;
    this.maxLength = maxLength;
    this.scale = this._handle.scale();
    this.bytesPerToken = this._handle.bytesPerToken();
  }

  _live(fn) {
    if (!this._handle) throw new Error(`${fn}: the cache was disposed; expected a cache from createKVCache that is still live`);
    return this._handle;
  }

  /** Appends one token's keys k and values v, each [kvHeads, dHead]. Returns the new length. */
  append(k, v) {
    const fn = 'KVCache.append';
    const handle = this._live(fn);
    const length = handle.append(this._input(k, fn, 'k'), this._input(v, fn, 'v'));
    if (length < 0) throw new Error(handle.lastError());
    return length;
  }

  /**
   * Attends q [heads, dHead], the newest token's query, over every cached token.
   * @returns { output [heads, dHead], weights [heads, length], multiplyAdds, multiplyAddsWithoutCache }
   */
  attend(q) {
    const fn = 'KVCache.attend';
    const raw = this._live(fn).attend(this._input(q, fn, 'q'));
    if (typeof raw.error === 'string') throw new Error(raw.error);
    raw.output = fromEngine(raw.output);
    raw.weights = fromEngine(raw.weights);
    return raw;
  }

  /** Tokens cached so far. */
  get length() { return this._live('KVCache.length').length(); }

  /** Bytes the cache holds now: 2 x length x kvHeads x dHead x 4 (float32). */
  get bytes() { return this._live('KVCache.bytes').bytes(); }

  /** Frees the engine memory; later calls throw. Calling it again does nothing. */
  dispose() {
    if (this._handle) {
      this._handle.release();
      this._handle.delete();
      this._handle = null;
    }
  }
}

module.exports = { KVCache };
