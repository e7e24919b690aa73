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

const { readArgs } = require('./options.js');

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
  const { Staging } = require('./staging.js');  // here: staging.js needs this file's exports
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

// No regular expressions here: this runs where the stack ran out, and compiling one there is
// fatal to V8 (a process out of memory).
function stopMessage(fn, cause) {
  const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  if (cause instanceof RangeError && String(cause.message).includes('call stack')) {
    return `${fn}: the JavaScript stack ran out inside the engine (${what}); expected a call from less deep recursion`;
  }
  return `${fn}: the engine stopped (${what}); expected a call it can finish`;
}

/**
 * Runs one call of the API: reads `args` by signature `sig`, then body(engine, values) on the
 * engine `current()` gives once they are read (reading runs the caller's getters, which may
 * call the API themselves). A stop of the engine during the call becomes an Error naming
 * sig.name; current() is where a stopped engine is replaced, at the start of a later call (not
 * here, where the stack may have run out).
 */
function run(current, sig, args, body) {
  let e = current();
  try {
    const values = readArgs(sig, args, e.ctx);
    e = current();
    return body(e, values);
  } catch (err) {
    if (!e.stopped) throw err;
    return rethrow(sig.name, e.stopped);
  }
}

function rethrow(fn, cause) {
  const error = new Error(stopMessage(fn, cause));
  error.cause = cause;
  throw error;
}

/** The Error for a call on an object whose engine has stopped. */
function stoppedError(fn, e, kind) {
  const error = new Error(`${fn}: the engine this ${kind} was made on stopped; expected a new one`);
  error.cause = e.stopped;
  return error;
}

/** { error } from the engine as an Error; anything else as it is (own properties only). */
function unwrap(result) {
  if (result && Object.prototype.hasOwnProperty.call(result, 'error') && typeof result.error === 'string') {
    throw new Error(result.error);
  }
  return result;
}

module.exports = { makeEngine, run, stoppedError, unwrap };
