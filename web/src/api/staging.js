'use strict';
// The JavaScript half of cpp/bindings/staging.*: lab.attention without per-call embind
// objects. Shapes go through a scratch array of doubles in wasm memory, each input's
// Float32Array is copied in with one set(), results are copied out with one slice() per
// stage asked for, and release() runs in a finally so no error path keeps engine memory.
// A call repeating the shapes and options of the last small call without masks reuses one
// engine-side workspace: no allocation at all, which is most of the cost at n = 5.

const { Tensor } = require('./tensor.js');
const { engineObject } = require('./engine-object.js');
const { FloatPool } = require('./float-pool.js');

// Indices shared with staging.cpp: input slots and the scaling rule numbers. Messages name
// the function as 0 and slot s as s + 1 (staging::name), so calls pass numbers, not strings.
const SLOT = { Q: 0, K: 1, V: 2, validLens: 3, mask: 4 };
const RULE = { sqrt: 0, none: 1, dk: 2 };
const SCRATCH = 64;  // doubles in staging::scratch_
// Where the result header keeps each stage's address (staging.hpp, attention()).
const HEADER = { scores: 4, scaled: 5, masked: 6, weights: 7, output: 8 };

// The numbers an engine object takes for o.rope and o.alibi (staging::positions, and
// kv_cache_handle::configure): layout -1 (no RoPE), 0 interleaved, 1 half; base; offset; alibi.
// [layout, has base, base, offset, alibi] (cpp/bindings/position_tables.hpp: position_spec);
// a base left out is the engine's default, decided there.
function positionArgs(o) {
  const r = o.rope;
  if (r === undefined) return [-1, false, 0, 0, !!o.alibi];
  return [r.layout === 'half' ? 1 : 0, r.base !== undefined, r.base === undefined ? 0 : r.base, r.offset === undefined ? 0 : r.offset, !!o.alibi];
}

function setPositions(handle, o) {
  handle.positions(...positionArgs(o));
}

class Staging {
  constructor(core) {
    this._core = core;
    this._handle = engineObject(core, 'Staging');
    this._scratch = this._handle.scratchAddress() / 8;
    this._buffer = null;
    this._f32 = null;
    this._f64 = null;
    this._pool = new FloatPool();
  }

  /** The engine's memory as it is now (growing it detaches the old buffer, and its views read length 0). */
  buffer() {
    if (!this._f32 || this._f32.length === 0) {
      this._buffer = this._handle.memoryView().buffer;
      this._f32 = new Float32Array(this._buffer);
      this._f64 = new Float64Array(this._buffer);
    }
    return this._buffer;
  }

  _putShape(at, shape) {
    this._f64[at++] = shape.length;
    for (let i = 0; i < shape.length; i++) this._f64[at++] = shape[i];
    return at;
  }

  _put(slot, t) {
    this.buffer();
    for (let i = 0; i < t.shape.length; i++) this._f64[this._scratch + i] = t.shape[i];
    const address = this._handle.input(slot, 0, slot + 1, t.shape.length, t.size);
    if (address < 0) throw new Error(this._handle.error());
    this.buffer();
    this._f32.set(t.data, address / 4);
  }

  /**
   * @param q, k, v { shape, data: Float32Array, size } outside engine memory (tensor.js toInput)
   * @param o options as the reader gives them (signatures.js, attention)
   * @param stages names of the stages to copy out
   */
  attention(q, k, v, o, stages) {
    const hasScale = o.scale !== undefined, scale = hasScale ? o.scale : 0;
    const rule = RULE[o.scaling || 'sqrt'], temperature = o.temperature === undefined ? 1 : o.temperature;
    let done = false;  // a cached run that succeeded has nothing to release
    try {
      const positions = o.rope !== undefined || o.alibi;
      if (!o.validLens && !o.mask && o.window === undefined && !positions && q.shape.length + k.shape.length + v.shape.length + 3 <= SCRATCH) {
        // A repeat of an earlier call's shapes and options: fill the cached workspace in place.
        this.buffer();
        let at = this._scratch;
        at = this._putShape(at, q.shape);
        at = this._putShape(at, k.shape);
        this._putShape(at, v.shape);
        // Plain wasm exports (staging.cpp), not embind: these two calls are the whole engine
        // round trip of a repeated call.
        const core = this._core, address = this._handle.address;
        if (core._attnlab_staging_lookup(address, o.causal, hasScale, scale, rule, temperature, q.size, k.size, v.size)) {
          const h = this._f64, s = this._scratch;
          this._f32.set(q.data, h[s] / 4);
          this._f32.set(k.data, h[s + 1] / 4);
          this._f32.set(v.data, h[s + 2] / 4);
          if (!core._attnlab_staging_run_cached(address)) throw new Error(this._handle.error());
          const out = this._result(stages);
          done = true;
          return out;
        }
      }
      this._put(SLOT.Q, q);
      this._put(SLOT.K, k);
      this._put(SLOT.V, v);
      if (o.validLens) this._put(SLOT.validLens, o.validLens);
      if (o.mask) this._put(SLOT.mask, o.mask);
      if (positions) setPositions(this._handle, o);
      const hasWindow = o.window !== undefined;
      const ok = this._handle.attention(0, o.causal, hasScale, scale, rule, temperature, !!o.validLens, !!o.mask, hasWindow, hasWindow ? o.window : 0);
      if (!ok) throw new Error(this._handle.error());
      return this._result(stages);
    } finally {
      if (!done) this._handle.release();
    }
  }

  _result(stages) {
    this.buffer();
    const h = this._f64, s = this._scratch, f32 = this._f32;
    const rank = h[s + 3];
    // Plain loops and preallocated arrays: at n = 5 this copy-out is most of a call's JS time.
    const shape = new Array(rank), outShape = new Array(rank);
    let size = 1;
    for (let i = 0; i < rank; i++) {
      shape[i] = outShape[i] = h[s + 10 + i];
      size *= shape[i];
    }
    outShape[rank - 1] = h[s + 9];
    const outSize = shape[rank - 1] === 0 ? 0 : (size / shape[rank - 1]) * outShape[rank - 1];
    let total = 0;
    for (let i = 0; i < stages.length; i++) total += stages[i] === 'output' ? outSize : size;
    const pooled = this._pool.fits(total);
    const out = {};
    for (let i = 0; i < stages.length; i++) {
      const stage = stages[i], isOutput = stage === 'output';
      const start = h[s + HEADER[stage]] / 4, end = start + (isOutput ? outSize : size);
      let data;
      if (pooled) {
        data = this._pool.take(end - start);
        data.set(f32.subarray(start, end));
      } else {
        data = f32.slice(start, end);
      }
      out[stage] = new Tensor((isOutput ? outShape : shape).slice(), data);
    }
    out.scale = h[s];
    const count = h[s + 1], rows = new Array(count);
    for (let r = 0, at = h[s + 2] / 8; r < count; r++, at += rank - 1) rows[r] = Array.from(h.subarray(at, at + rank - 1));
    out.fullyMaskedRows = rows;
    return out;
  }
}

module.exports = { Staging, positionArgs };
