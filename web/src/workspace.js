'use strict';
// The fast path: inputs and stages live in wasm memory; JS writes and reads through views.
// A view is valid until wasm memory grows (another call may grow it), so every getter
// returns a fresh view: read ws.Q each frame rather than keeping it.

const { checkSpec, numberArg, numberList, attentionOptions, ATTENTION_OPTIONS, STAGES } = require('./options.js');
const { engineObject } = require('./engine-object.js');


class Workspace {
  constructor(core, spec, ctx) {
    const fn = 'createWorkspace';
    // Every argument is read and checked before the engine object exists, so a bad one
    // leaves nothing behind.
    const o = checkSpec(fn, spec, ['batch', 'm', 'n', 'dk', 'dv', ...ATTENTION_OPTIONS]);
    const batch = numberList(fn, o.batch === undefined ? [] : o.batch, 'batch');
    const sizes = {};
    for (const key of ['m', 'n', 'dk', 'dv']) sizes[key] = numberArg(fn, o, key);
    const given = {};
    for (const key of ATTENTION_OPTIONS) if (o[key] !== undefined) given[key] = o[key];
    const { options } = attentionOptions(fn, given, ctx);
    this.batch = batch;
    Object.assign(this, sizes);
    this._handle = engineObject(core, 'Workspace');
    let ok = false;
    try {
      const result = this._handle.configure({ batch, ...sizes, options });
      if (typeof result.error === 'string') throw new Error(result.error);
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
  }

  _view(name) {
    if (!this._handle) throw new Error('Workspace: used after dispose()');
    return this._handle.view(name);
  }

  /** Queries [...batch, m, dk]: a view to fill in place. */
  get Q() { return this._view('Q'); }
  /** Keys [...batch, n, dk]. */
  get K() { return this._view('K'); }
  /** Values [...batch, n, dv]. */
  get V() { return this._view('V'); }

  /** Computes every stage from the current Q, K, V. Throws on NaN or infinity. */
  run() {
    if (!this._handle) throw new Error('Workspace: used after dispose()');
    if (!this._handle.run()) throw new Error(this._handle.lastError());
    return this;
  }

  /** Number of fully masked rows in the last run. */
  get fullyMaskedCount() { return this._handle ? this._handle.fullyMaskedCount() : 0; }

  /** Frees the wasm memory. The workspace cannot be used afterwards. */
  dispose() {
    if (this._handle) {
      this._handle.release();
      this._handle.delete();
      this._handle = null;
    }
  }
}

for (const stage of STAGES) {
  Object.defineProperty(Workspace.prototype, stage, {
    get() { return this._view(stage); },
  });
}

module.exports = { Workspace, STAGES };
