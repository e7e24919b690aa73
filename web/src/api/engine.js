'use strict';
// One running engine: the embind module with every function guarded, and what the API keeps
// per engine (the staging of lab.attention, what tensor.js needs, the mistakes' catalog). A lab
// has one current engine; lab.reset() replaces it with a fresh one, and so does a stop (below).
//
// A stop: a JavaScript exception that crosses the engine's C++ frames (the stack running out
// while the engine runs, deep inside a caller's recursion; an abort) skips their clean-up, so
// whatever those frames held stays allocated for good. Every engine function is guarded: the
// first exception out of one marks the engine stopped, and every later call into it throws at
// once. run() turns that into an Error naming the function; the lab starts a fresh engine at
// its next call (lab.js), and objects made on the stopped one refuse theirs.

const { Staging } = require('./staging.js');

/**
 * The module's functions, each guarded: an exception out of one stops `engine` (see above).
 * The catch only records it and throws it on: where the stack ran out, a call or an allocation
 * there would fail again before the stop was recorded.
 */
function guard(core, engine) {
  const out = {};
  for (const key of Object.keys(core)) {
    const f = core[key];
    if (typeof f !== 'function') continue;
    // Plain wasm exports ("_name", the per-call path of staging.js) ignore extra arguments, so
    // they get nine named ones rather than a rest array; embind's functions count theirs.
    out[key] = key[0] === '_'
      ? (a, b, c, d, e, g, h, i, j) => {
        if (engine.stopped) throw engine.stopped;
        try {
          return f(a, b, c, d, e, g, h, i, j);
        } catch (err) {
          if (!engine.stopped) engine.stopped = err;
          throw err;
        }
      }
      : (...args) => {
        if (engine.stopped) throw engine.stopped;
        try {
          return f(...args);
        } catch (err) {
          if (!engine.stopped) engine.stopped = err;
          throw err;
        }
      };
  }
  return out;
}

/**
 * An engine around an instantiated embind module.
 * @returns { core (guarded functions), staging, ctx (what the reader and tensor.js need),
 *   catalog() (the mistakes, read on first use), stopped (the exception that stopped it, or null) }
 */
function makeEngine(module) {
  const engine = { stopped: null };
  const core = guard(module, engine);
  const staging = new Staging(core);
  let catalog = null;
  engine.core = core;
  engine.staging = staging;
  engine.catalog = () => catalog || (catalog = Object.freeze(core.mistakeCatalog().map((m) => Object.freeze(m))));
  engine.ctx = {
    maxElements: core.maxElements(),
    maxIndex: core.maxIndex(),
    engineBuffer: () => staging.buffer(),
    mistakeNames: () => engine.catalog().map((m) => m.name).join(', '),
  };
  return engine;
}

module.exports = { makeEngine };
