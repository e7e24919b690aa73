'use strict';
// Why the engine could not start, as one of three codes a page can act on. The original
// error stays reachable as `cause` for the console; the message is for a reader.

const MESSAGES = {
  'wasm-blocked': "attention-lab: this page's security settings block WebAssembly, which the engine needs " +
    "(its Content-Security-Policy must allow script-src 'wasm-unsafe-eval')",
  'wasm-unsupported': 'attention-lab: this browser cannot run the engine (it needs WebAssembly with SIMD)',
  'engine-failed': 'attention-lab: the engine failed to start',
};

// Browsers word a CSP refusal differently (Chromium: "Refused to compile or instantiate
// WebAssembly module because 'unsafe-eval' is not an allowed source"; Firefox: "blocked by
// CSP"; Safari throws EvalError). A CompileError without those words means the bytes use
// a feature this engine lacks (SIMD, wasm exceptions).
const CSP_WORDING = /unsafe-eval|content.security|\bCSP\b|blocked|refused/i;

function loadErrorCode(err) {
  const name = err && err.name;
  const message = String(err && err.message);
  if (name === 'EvalError' || (name === 'CompileError' && CSP_WORDING.test(message))) return 'wasm-blocked';
  if (name === 'CompileError' || name === 'LinkError') return 'wasm-unsupported';
  return 'engine-failed';
}

/** An Error with `code` ('wasm-blocked', 'wasm-unsupported', 'engine-failed') and `cause`. */
function loadError(code, cause) {
  const detail = code === 'engine-failed' && cause && cause.message ? ` (${cause.message})` : '';
  const err = new Error(MESSAGES[code] + detail, cause === undefined ? undefined : { cause });
  err.code = code;
  if (cause !== undefined && err.cause === undefined) err.cause = cause;
  return err;
}

module.exports = { loadError, loadErrorCode };
