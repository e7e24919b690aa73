'use strict';
// The decoding cache over cpp/src/kv_cache.cpp: append a token's keys and values, attend the
// newest query over every cached token. Like workspace.js, every argument is read and checked
// before the engine object exists, and a failed construction frees it. A step is staged like
// lab.attention (staging.js, cpp/bindings/cost.cpp kv_cache_handle): shapes through scratch
// doubles, data copied in with one set() and out with one slice(), no embind objects per call.
// Every length read out of engine memory is one the engine reported (its header), never one
// this side computed from what the caller gave.

const { Tensor } = require('./tensor.js');
const { SIGNATURES } = require('./signatures.js');
const { EngineObject } = require('./engine-object.js');
const { unwrap } = require('./call.js');
const { positionArgs } = require('./staging.js');

// The operations of the engine's step() (cpp/bindings/cost.cpp, kv_cache_handle).
const OP = { k: 0, v: 1, q: 2, append: 3, attend: 4 };
// The attend header (kv_cache_handle::step): addresses, then the sizes of what they hold.
const H = { output: 0, weights: 1, length: 2, multiplyAdds: 3, withoutCache: 4, decode: 5, decodeWithoutCache: 6, heads: 7, dHead: 8 };
const DISPOSED = (fn) => `${fn}: the cache was disposed; expected a cache from createKVCache that is still live`;

class KVCache extends EngineObject {
  /** @param e the engine; @param spec createKVCache's spec as the reader made it */
  constructor(e, spec) {
    super(e, 'KVCache', 'cache');
    const kvHeads = spec.kvHeads === undefined ? spec.heads : spec.kvHeads;
    const scale = spec.scale;
    let ok = false;
    try {
      this._guard('createKVCache', () => unwrap(this._handle.configure(spec.heads, kvHeads, spec.dHead, spec.maxLength,
        scale !== undefined, scale === undefined ? 0 : scale, ...positionArgs(spec))));
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
    // The sizes as the engine holds them (checked and narrowed there).
    this.heads = this._handle.heads();
    this.kvHeads = this._handle.kvHeads();
    this.dHead = this._handle.dHead();
    this.maxLength = this._handle.maxLength();
    this.scale = this._handle.scale();
    this.bytesPerToken = this._handle.bytesPerToken();
    this._scratch = this._handle.scratchAddress() / 8;
    this._f32 = null;
    this._f64 = null;
  }

  /** Views of the engine's memory as it is now (growing it replaces the buffer). */
  _views() {
    const buffer = this._engine.ctx.engineBuffer();
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

  /** Copies t (toInput's { shape, data, size }) into engine input `op` (OP.k, OP.v or OP.q). */
  _stage(handle, op, t) {
    this._views();
    const shape = t.shape, s = this._scratch;
    for (let i = 0; i < shape.length; i++) this._f64[s + i] = shape[i];
    const address = this._step(handle, op, shape.length, t.size);
    this._views();
    this._f32.set(t.data, address / 4);
  }

  /** Appends one token's keys k and values v, each [kvHeads, dHead]. Returns the new length. */
  append(k, v) {
    const sig = SIGNATURES['KVCache.append'];
    const handle = this._live(sig.name, DISPOSED(sig.name));
    return this._call(sig, arguments, ([kIn, vIn]) => {
      this._stage(handle, OP.k, kIn);
      this._stage(handle, OP.v, vIn);
      return this._step(handle, OP.append);
    });
  }

  /**
   * Attends q [heads, dHead], the newest token's query, over every cached token.
   * @returns { output [heads, dHead], weights [heads, length], multiplyAdds, multiplyAddsWithoutCache,
   *   decodeMultiplyAdds, decodeMultiplyAddsWithoutCache (every step of decoding the `length` tokens) }
   */
  attend(q) {
    const sig = SIGNATURES['KVCache.attend'];
    const handle = this._live(sig.name, DISPOSED(sig.name));
    return this._call(sig, arguments, ([qIn]) => {
      this._stage(handle, OP.q, qIn);
      this._step(handle, OP.attend);
      this._views();
      const h = this._f64, s = this._scratch, f32 = this._f32;
      const heads = h[s + H.heads], d = h[s + H.dHead], length = h[s + H.length];
      const out = h[s + H.output] / 4, weights = h[s + H.weights] / 4;
      return {
        output: new Tensor([heads, d], f32.slice(out, out + heads * d)),
        weights: new Tensor([heads, length], f32.slice(weights, weights + heads * length)),
        multiplyAdds: h[s + H.multiplyAdds],
        multiplyAddsWithoutCache: h[s + H.withoutCache],
        decodeMultiplyAdds: h[s + H.decode],
        decodeMultiplyAddsWithoutCache: h[s + H.decodeWithoutCache],
      };
    });
  }

  /** Tokens cached so far. */
  get length() {
    const handle = this._live('KVCache.length', DISPOSED('KVCache.length'));
    return this._guard('KVCache.length', () => handle.length());
  }

  /** Bytes the cache holds now: 2 x length x kvHeads x dHead x 4 (float32). */
  get bytes() {
    const handle = this._live('KVCache.bytes', DISPOSED('KVCache.bytes'));
    return this._guard('KVCache.bytes', () => handle.bytes());
  }
}

module.exports = { KVCache };
