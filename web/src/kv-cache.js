'use strict';
// The decoding cache over cpp/src/kv_cache.cpp: append a token's keys and values, attend the
// newest query over every cached token. Like workspace.js, every argument is read and checked
// before the engine object exists, and a failed construction frees it. A step is staged like
// lab.attention (staging.js, cpp/bindings/cost.cpp kv_cache_handle): shapes through scratch
// doubles, data copied in with one set() and out with one slice(), no embind objects per call.

const { Tensor } = require('./tensor.js');
const { checkSpec, numberArg, numberOption } = require('./options.js');
const { engineObject } = require('./engine-object.js');

// The operations of the engine's step() (cpp/bindings/cost.cpp, kv_cache_handle).
const OP = { k: 0, v: 1, q: 2, append: 3, attend: 4 };

class KVCache {
  constructor(core, spec, { input, engineBuffer }) {
    const fn = 'createKVCache';
    const o = checkSpec(fn, spec, ['heads', 'kvHeads', 'dHead', 'maxLength', 'scale']);
    const heads = numberArg(fn, o, 'heads');
    const kvHeads = numberArg(fn, o, 'kvHeads', heads);
    const dHead = numberArg(fn, o, 'dHead');
    const maxLength = numberArg(fn, o, 'maxLength');
    const scale = numberOption(fn, o, 'scale');
    this._input = input;
    this._engineBuffer = engineBuffer;
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
    this._scratch = this._handle.scratchAddress() / 8;
    this._f32 = null;
    this._f64 = null;
  }

  /** Views of the engine's memory as it is now (growing it replaces the buffer). */
  _views() {
    const buffer = this._engineBuffer();
    if (!this._f32 || this._f32.buffer !== buffer) {
      this._f32 = new Float32Array(buffer);
      this._f64 = new Float64Array(buffer);
    }
  }

  /** Runs engine step `op`; returns its number, or throws the engine's message. */
  _step(handle, op, rank = 0, length = 0) {
    const result = handle.step(op, rank, length);
    if (result < 0) throw new Error(handle.lastError());
    return result;
  }

  /** Copies t ({ shape, data: Float32Array }) into engine input `op` (OP.k, OP.v or OP.q). */
  _stage(handle, op, t) {
    this._views();
    const shape = t.shape, s = this._scratch;
    for (let i = 0; i < shape.length; i++) this._f64[s + i] = shape[i];
    const address = this._step(handle, op, shape.length, t.data.length);
    this._views();
    this._f32.set(t.data, address / 4);
  }

  _live(fn) {
    if (!this._handle) throw new Error(`${fn}: the cache was disposed; expected a cache from createKVCache that is still live`);
    return this._handle;
  }

  /** Appends one token's keys k and values v, each [kvHeads, dHead]. Returns the new length. */
  append(k, v) {
    const fn = 'KVCache.append';
    const handle = this._live(fn);
    const kIn = this._input(k, fn, 'k'), vIn = this._input(v, fn, 'v');
    this._stage(handle, OP.k, kIn);
    this._stage(handle, OP.v, vIn);
    return this._step(handle, OP.append);
  }

  /**
   * Attends q [heads, dHead], the newest token's query, over every cached token.
   * @returns { output [heads, dHead], weights [heads, length], multiplyAdds, multiplyAddsWithoutCache,
   *   decodeMultiplyAdds, decodeMultiplyAddsWithoutCache (every step of decoding the `length` tokens) }
   */
  attend(q) {
    const fn = 'KVCache.attend';
    const handle = this._live(fn);
    this._stage(handle, OP.q, this._input(q, fn, 'q'));
    this._step(handle, OP.attend);
    this._views();
    const h = this._f64, s = this._scratch, f32 = this._f32;
    const heads = this.heads, d = this.dHead, length = h[s + 2];
    const out = h[s] / 4, weights = h[s + 1] / 4;
    return {
      output: new Tensor([heads, d], f32.slice(out, out + heads * d)),
      weights: new Tensor([heads, length], f32.slice(weights, weights + heads * length)),
      multiplyAdds: h[s + 3],
      multiplyAddsWithoutCache: h[s + 4],
      decodeMultiplyAdds: h[s + 5],
      decodeMultiplyAddsWithoutCache: h[s + 6],
    };
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
