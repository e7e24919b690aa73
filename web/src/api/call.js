'use strict';
// One call of the API on the current engine (see engine.js for what a stop is): the arguments
// read by the call's signature, the body run, and a stop of the engine during the call turned
// into an Error naming the function. Apart from engine.js, which makes engines, so that the
// engine objects (engine-object.js, which staging.js uses) need not import the engine's maker.

const { readArgs } = require('./options.js');

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

module.exports = { run, stoppedError, unwrap };
