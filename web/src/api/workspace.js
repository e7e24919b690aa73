'use strict';
// The fast path: inputs and stages live in wasm memory; JS writes and reads through views.
// A view is valid until wasm memory grows (another call may grow it), so every getter
// returns a fresh view: read ws.Q each frame rather than keeping it.

const { STAGES, Fields } = require('./options.js');
const { ATTENTION_OPTIONS } = require('./signatures.js');
const { EngineObject } = require('./engine-object.js');
const { unwrap } = require('./call.js');

const DISPOSED = 'Workspace: used after dispose()';

class Workspace extends EngineObject {
  /**
   * @param e the engine; @param spec createWorkspace's spec as the reader made it (every
   *   argument checked before the engine object exists, so a bad one leaves nothing behind)
   */
  constructor(e, spec) {
    super(e, 'Workspace', 'workspace');
    const config = new Fields(), options = new Fields();
    for (const key of ['batch', 'm', 'n', 'dk', 'dv']) config[key] = spec[key];
    for (const key of ATTENTION_OPTIONS) if (spec[key] !== undefined) options[key] = spec[key];
    config.options = options;
    let ok = false;
    try {
      this._guard('createWorkspace', () => unwrap(this._handle.configure(config)));
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
    this.batch = spec.batch.slice();
    this.m = spec.m;
    this.n = spec.n;
    this.dk = spec.dk;
    this.dv = spec.dv;
  }

  _view(name) {
    const handle = this._live('Workspace', DISPOSED);
    return this._guard('Workspace', () => handle.view(name));
  }

  /** Queries [...batch, m, dk]: a view to fill in place. */
  get Q() { return this._view('Q'); }
  /** Keys [...batch, n, dk]. */
  get K() { return this._view('K'); }
  /** Values [...batch, n, dv]. */
  get V() { return this._view('V'); }

  /** Computes every stage from the current Q, K, V. Throws on NaN or infinity. */
  run() {
    const handle = this._live('Workspace.run', DISPOSED);
    if (!this._guard('Workspace.run', () => handle.run())) throw new Error(handle.lastError());
    return this;
  }

  /** Number of fully masked rows in the last run. */
  get fullyMaskedCount() {
    return this._handle && !this._engine.stopped ? this._guard('Workspace', () => this._handle.fullyMaskedCount()) : 0;
  }
}

for (const stage of STAGES) {
  Object.defineProperty(Workspace.prototype, stage, {
    get() { return this._view(stage); },
  });
}

module.exports = { Workspace, STAGES };
