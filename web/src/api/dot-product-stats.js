'use strict';
// The sqrt(d_k) experiment in steps: lab.createDotProductStats({ dk, seed }). The engine
// keeps the generator and running sums, so any split of N samples over add() gives exactly
// lab.dotProductStats({ dk, samples: N, seed }).

const { SIGNATURES } = require('./signatures.js');
const { EngineObject } = require('./engine-object.js');
const { unwrap } = require('./call.js');

const FN = 'createDotProductStats';

class DotProductStats extends EngineObject {
  /** @param e the engine; @param spec { dk, seed } as the reader made it */
  constructor(e, spec) {
    super(e, 'DotProductStats', 'experiment');
    let ok = false;
    try {
      this._guard(FN, () => unwrap(this._handle.start(spec.dk, spec.seed)));
      ok = true;
    } finally {
      if (!ok) this.dispose();
    }
  }

  /** Draws `count` more pairs (a whole number >= 1). Returns this. */
  add(count) {
    const handle = this._live(`${FN}: add`, `${FN}: add used after dispose()`);
    this._call(SIGNATURES['DotProductStats.add'], arguments, ([n]) => unwrap(handle.add(n)));
    return this;
  }

  /** Pairs drawn so far. */
  get samples() {
    return this._handle && !this._engine.stopped ? this._guard(FN, () => this._handle.samples()) : 0;
  }

  /** { mean, variance, std, expectedStd } of the pairs drawn so far (at least 2). */
  result() {
    const handle = this._live(`${FN}: result`, `${FN}: result used after dispose()`);
    return this._guard(`${FN}: result`, () => unwrap(handle.result()));
  }
}

module.exports = { DotProductStats };
