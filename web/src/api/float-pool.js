'use strict';
// Float32Arrays for small results, carved from a shared slab as node's Buffer pool does for
// small Buffers. A typed array of more than 64 bytes gets its own off-heap backing store,
// and at n = 5 allocating those (and the garbage collections their external memory
// triggers) costs more than the attention itself; a view into a slab costs a JS object.
// The price: a pooled array's .buffer is the slab, shared with other results (slice() one
// before transferring its buffer), and a kept result keeps its slab (at most SLAB_BYTES)
// alive. Larger results get arrays of their own.

const SLAB_BYTES = 16384;
const POOLED_MAX_BYTES = 4096;

class FloatPool {
  constructor() {
    this._slab = null;
    this._used = SLAB_BYTES;
  }

  /** True when `length` floats (one call's results together) should come from the pool. */
  fits(length) {
    return length * 4 <= POOLED_MAX_BYTES;
  }

  /** A zeroed Float32Array of `length` floats (length * 4 <= POOLED_MAX_BYTES): a slab view. */
  take(length) {
    const bytes = length * 4;
    // A slab whose buffer a caller transferred (postMessage, structuredClone) is detached:
    // its byteLength reads 0 and no view can be made on it, so start a new one.
    if (this._used + bytes > SLAB_BYTES || this._slab.byteLength === 0) {
      this._slab = new ArrayBuffer(SLAB_BYTES);
      this._used = 0;
    }
    const view = new Float32Array(this._slab, this._used, length);
    this._used += bytes;
    return view;
  }
}

module.exports = { FloatPool, POOLED_MAX_BYTES };
