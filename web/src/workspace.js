'use strict';
// The fast path: inputs and stages live in wasm memory; JS writes and reads through views.
// A view is valid until wasm memory grows (another call may grow it), so every getter
// returns a fresh view: read ws.Q each frame rather than keeping it.

const { checkKeys, wholeOption, attentionOptions, ATTENTION_OPTIONS } = require('./options.js');
const { describe } = require('./tensor.js');

const STAGES = ['scores', 'scaled', 'masked', 'weights', 'output'];

class Workspace {
  constructor(core, spec) {
    const fn = 'createWorkspace';
    if (!spec || typeof spec !== 'object') throw new Error(`${fn}: expected an object { m, n, dk, dv }; got ${describe(spec)}`);
    const o = checkKeys(fn, spec, ['batch', 'm', 'n', 'dk', 'dv', ...ATTENTION_OPTIONS]);
    const batch = o.batch === undefined ? [] : o.batch;
    if (!Array.isArray(batch) || !batch.every((e) => Number.isInteger(e) && e >= 1)) {
      throw new Error(`${fn}: batch is ${JSON.stringify(batch)}; expected an array of whole numbers >= 1`);
    }
    const sizes = {};
    for (const key of ['m', 'n', 'dk', 'dv']) sizes[key] = wholeOption(fn, o, key, undefined, 1);
    const options = {};
    for (const key of ATTENTION_OPTIONS) if (o[key] !== undefined) options[key] = o[key];
    this.batch = batch.slice();
    Object.assign(this, sizes);
    this._handle = new core.Workspace();
    const result = this._handle.configure({ batch, ...sizes, options: attentionOptions(fn, options) });
    if (typeof result.error === 'string') {
      this.dispose();
      throw new Error(result.error.replace(/^attention:/, `${fn}:`));
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
