'use strict';
// The JavaScript half of cpp/bindings/staging.*: lab.attention without per-call embind
// objects. Shapes go through a scratch array of doubles in wasm memory, each input's
// Float32Array is copied in with one set(), results are copied out with one slice() per
// stage asked for, and release() runs in a finally so no error path keeps engine memory.
// A call repeating the shapes and options of the last small call without masks reuses one
// engine-side workspace: no allocation at all, which is most of the cost at n = 5.

const { Tensor } = require('./tensor.js');

// Indices shared with staging.cpp: input slots, the scaling rule numbers, and the names
// the engine puts in messages (registered once, so calls pass small numbers, not strings).
const SLOT = { Q: 0, K: 1, V: 2, validLens: 3, mask: 4 };
const RULE = { sqrt: 0, none: 1, dk: 2 };
const NAMES = ['attention', 'Q', 'K', 'V', 'validLens', 'mask'];
const SCRATCH = 64;  // doubles in staging::scratch_

class Staging {
  constructor(core) {
    this._core = core;
    this._handle = new core.Staging();
    NAMES.forEach((name, i) => this._handle.setName(i, name));
    this._scratch = this._handle.scratchAddress() / 8;
    this._f32 = null;
    this._f64 = null;
  }

  /** The engine's memory as it is now (growing it detaches the old buffer). */
  buffer() {
    if (!this._f32 || this._f32.buffer.byteLength === 0) {
      const buffer = this._handle.memoryView().buffer;
      this._f32 = new Float32Array(buffer);
      this._f64 = new Float64Array(buffer);
    }
    return this._f32.buffer;
  }

  _put(slot, t) {
    this.buffer();
    for (let i = 0; i < t.shape.length; i++) this._f64[this._scratch + i] = t.shape[i];
    const address = this._handle.input(slot, 0, slot + 1, t.shape.length, t.data.length);
    if (address < 0) throw new Error(this._handle.error());
    this.buffer();
    this._f32.set(t.data, address / 4);
  }

  /**
   * @param q, k, v { shape, data: Float32Array } outside engine memory
   * @param o options in engine form (attentionOptions().options)
   * @param stages names of the stages to copy out
   */
  attention(q, k, v, o, stages) {
    const hasScale = o.scale !== undefined, scale = hasScale ? o.scale : 0;
    const rule = RULE[o.scaling || 'sqrt'], temperature = o.temperature === undefined ? 1 : o.temperature;
    let done = false;  // a cached run that succeeded has nothing to release
    try {
      if (!o.validLens && !o.mask && o.window === undefined && q.shape.length + k.shape.length + v.shape.length + 3 <= SCRATCH) {
        // A repeat of an earlier call's shapes and options: fill the cached workspace in place.
        this.buffer();
        let at = this._scratch;
        for (const t of [q, k, v]) {
          this._f64[at++] = t.shape.length;
          for (let i = 0; i < t.shape.length; i++) this._f64[at++] = t.shape[i];
        }
        if (this._handle.lookup(o.causal, hasScale, scale, rule, temperature, q.data.length, k.data.length, v.data.length)) {
          const h = this._f64, s = this._scratch;
          this._f32.set(q.data, h[s] / 4);
          this._f32.set(k.data, h[s + 1] / 4);
          this._f32.set(v.data, h[s + 2] / 4);
          if (!this._handle.runCached()) throw new Error(this._handle.error());
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
    const shape = Array.from(h.subarray(s + 10, s + 10 + rank));
    const outShape = shape.slice(0, -1).concat(h[s + 9]);
    const out = {};
    const where = { scores: 4, scaled: 5, masked: 6, weights: 7, output: 8 };
    for (const stage of stages) {
      const sh = stage === 'output' ? outShape : shape;
      const size = sh.reduce((a, b) => a * b, 1);
      const start = h[s + where[stage]] / 4;
      out[stage] = new Tensor(sh.slice(), f32.slice(start, start + size));
    }
    out.scale = h[s];
    const count = h[s + 1], rows = [];
    for (let r = 0, at = h[s + 2] / 8; r < count; r++, at += rank - 1) rows.push(Array.from(h.subarray(at, at + rank - 1)));
    out.fullyMaskedRows = rows;
    return out;
  }
}

module.exports = { Staging };
