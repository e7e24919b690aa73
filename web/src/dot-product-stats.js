'use strict';
// The sqrt(d_k) experiment in steps: lab.createDotProductStats({ dk, seed }). The engine
// keeps the generator and running sums, so any split of N samples over add() gives exactly
// lab.dotProductStats({ dk, samples: N, seed }).

const { checkKeys, numberArg } = require('./options.js');
const { describe } = require('./tensor.js');
const { engineObject } = require('./engine-object.js');

const FN = 'createDotProductStats';

function unwrap(result) {
  if (result && typeof result.error === 'string') throw new Error(result.error);
  return result;
}

class DotProductStats {
  constructor(core, spec) {
    if (!spec || typeof spec !== 'object') throw new Error(`${FN}: expected an object { dk, seed }; got ${describe(spec)}`);
    const o = checkKeys(FN, spec, ['dk', 'seed']);
    const dk = numberArg(FN, o, 'dk');
    const seed = numberArg(FN, o, 'seed', 1);
    this._handle = engineObject(core, 'DotProductStats');
    try {
      unwrap(this._handle.start(dk, seed));
    } catch (err) {
      this.dispose();
      throw err;
    }
  }

  _live(method) {
    if (!this._handle) throw new Error(`${FN}: ${method} used after dispose()`);
    return this._handle;
  }

  /** Draws `count` more pairs (a whole number >= 1). Returns this. */
  add(count) {
    const handle = this._live('add');
    if (typeof count !== 'number') throw new Error(`${FN}: add: count is ${describe(count)}; expected a whole number`);
    unwrap(handle.add(count));
    return this;
  }

  /** Pairs drawn so far. */
  get samples() { return this._handle ? this._handle.samples() : 0; }

  /** { mean, variance, std, expectedStd } of the pairs drawn so far (at least 2). */
  result() {
    return unwrap(this._live('result').result());
  }

  /** Frees the engine's state. The object cannot be used afterwards. */
  dispose() {
    if (this._handle) {
      this._handle.delete();
      this._handle = null;
    }
  }
}

module.exports = { DotProductStats };
