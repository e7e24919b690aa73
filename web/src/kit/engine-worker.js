'use strict';
// A Web Worker that runs this very script, for widgets whose engine work would block the page
// (the cost lab's measurements, the trainer's training). `main` posts { type: 'ready' } once its
// engine is loaded, or { type: 'failed', message }. Three ways to make it, the first the page
// allows:
// - the classic script's own address, when it is on the page's origin: the worker loads the
//   script (which starts serveWorker) and is told which main to run by its label. A policy
//   that allows the page's own scripts as workers (worker-src, else script-src, 'self') allows
//   it, so a strict page gets a worker with nothing refused;
// - a Blob of the script's own source (the build wraps the classic bundle in the named function
//   attentionLabScript, see scripts/build.js; the elements module gives the engine's source
//   through setEngineSource), then `main` called with the sources of `args`: works from file://
//   and for the ES module, where the page allows blob: workers;
// - none: start() rejects and the widget works on the page, in slices.
// The page's policy is read from its <meta http-equiv="Content-Security-Policy"> elements before
// anything is tried, so a page whose policy forbids a way never logs a refusal; under Trusted
// Types the worker's address comes from a policy named "attention-lab".

/* global attentionLabScript */

const TT_POLICY = 'attention-lab';
// The classic script's address, read while it runs (this module is first required then).
const OWN_URL = typeof attentionLabScript === 'function' && typeof document !== 'undefined' && document.currentScript
  && document.currentScript.src ? document.currentScript.src : null;
// The shipped model's script, beside the classic script (dist/attention-lab-model.js): loaded
// only when a <model-attention model> comes near (shipped-model.js).
const MODEL_URL = OWN_URL ? new URL('attention-lab-model.js', OWN_URL).href : null;
// The directives that govern a dedicated worker's address, the first present one deciding.
const WORKER_CHAIN = ['worker-src', 'child-src', 'script-src', 'default-src'];
let engineSource = null;

/** For the elements module: the source of a function that makes the engine and returns { loadAttentionLab }. */
function setEngineSource(source) {
  engineSource = source;
}

/** The worker's source, or null when there is none (tests importing web/src, a module without the engine's source). */
function workerSource(main, args = []) {
  const call = `(${main.toString()})(${args.map((a) => a.toString()).join(', ')});\n`;
  if (typeof attentionLabScript === 'function') return `(${attentionLabScript.toString()})();\n${call}`;
  if (engineSource) return `self.AttentionLab = (${engineSource})();\n${call}`;
  return null;
}

// The mains a worker started from the script's address runs, by label.
const MAINS = {
  'attention-trainer': () => require('./trainer-runner.js').workerEntry(),
  'cost-lab': () => require('./cost-runner.js').workerEntry(),
  'position-race': () => require('./race-runner.js').workerEntry(),
};

/** In a worker started from the script's address: waits for the page to say which main to run. */
function serveWorker() {
  // A listener, not onmessage: a worker of the page's own that imports the script keeps its handler.
  const start = (event) => {
    const m = event.data;
    if (!m || m.type !== 'al-start' || !Object.prototype.hasOwnProperty.call(MAINS, m.label)) return;
    self.removeEventListener('message', start);
    const [main, args] = MAINS[m.label]();
    main(...args);
  };
  self.addEventListener('message', start);
}

/** The sources a policy's text gives the first of `names` it sets, or null. */
function sources(policy, names) {
  for (const d of names) {
    const m = new RegExp(`(?:^|;)\\s*${d}\\s+([^;]*)`, 'i').exec(policy);
    if (m) return m[1].trim().split(/\s+/);
  }
  return null;
}

/**
 * What the page's <meta> policies allow: a worker whose address passes `ok` (every policy's
 * worker directive, else none set), and Trusted Types' policy of ours.
 */
function metaAllows(ok) {
  const metas = typeof document === 'undefined' ? [] : Array.from(document.querySelectorAll('meta[http-equiv="content-security-policy" i]'), (m) => m.content);
  return metas.every((p) => {
    const list = sources(p, WORKER_CHAIN);
    const tt = (sources(p, ['require-trusted-types-for']) || []).includes("'script'");
    return (!list || list.some(ok)) && (!tt || (sources(p, ['trusted-types']) || ['*']).some((s) => s === TT_POLICY || s === '*'));
  });
}

/** A script's address as the page's Trusted Types want it (one shared policy, our addresses only: this script, the model's, blob: workers). */
let policy = null;
let refused = null;  // the page refused the policy once: not asked again (each try is a violation report)
function scriptURL(url) {
  if (!globalThis.trustedTypes) return url;
  if (refused) throw refused;
  try {
    policy = policy || trustedTypes.createPolicy(TT_POLICY, {  // eslint-disable-line no-undef
      createScriptURL: (value) => {
        if (value === OWN_URL || value === MODEL_URL || value.startsWith('blob:')) return value;
        throw new TypeError(value);
      },
    });
  } catch (err) {
    refused = err;
    throw err;
  }
  return policy.createScriptURL(url);
}

/**
 * Starts a worker running `main(...args)` and waits for its engine. Rejects (with an Error
 * whose message starts with `<label>: `) when the page does not allow it, the script cannot
 * provide its own source, or the engine fails to start there. A worker from the script's
 * address that the page refuses (a header policy, which no script can read, that allows
 * blob: workers only) is followed by one from a Blob.
 */
function startWorker(main, args, label, timeoutMs = 30000) {
  const origin = typeof location === 'undefined' ? null : location.origin;
  const own = Boolean(OWN_URL) && /^https?:/.test(OWN_URL) && globalThis.origin !== 'null' && new URL(OWN_URL).origin === origin
    && metaAllows((s) => s === "'self'" || s === '*' || s.replace(/\/$/, '') === origin);
  const source = workerSource(main, args);
  const blob = Boolean(source) && metaAllows((s) => s === 'blob:');
  const fromBlob = () => (blob ? tryWorker(null, source, label, timeoutMs) : Promise.reject(new Error(`${label}: no worker on this page`)));
  return own ? tryWorker(OWN_URL, null, label, timeoutMs).catch((err) => (err.refused ? fromBlob() : Promise.reject(err))) : fromBlob();
}

/** One worker, from `url` (the script's address; told its label) or from a Blob of `source`. */
function tryWorker(url, source, label, timeoutMs) {
  return new Promise((resolve, reject) => {
    const address = url || URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    let worker;
    // refused: the page would not run the worker at all (not an engine that failed in it)
    const fail = (message, refused = false) => {
      clearTimeout(timer);
      if (worker) worker.terminate();
      if (!url) URL.revokeObjectURL(address);
      reject(Object.assign(new Error(`${label}: ${message}`), { refused }));
    };
    const timer = setTimeout(() => fail('the worker did not start'), timeoutMs);
    try {
      worker = new Worker(scriptURL(address));
    } catch (err) {
      fail(err.message, true);
      return;
    }
    worker.onerror = (e) => {
      e.preventDefault();
      fail(`the worker could not run (${e.message})`, true);
    };
    worker.onmessage = (e) => {
      if (e.data.type === 'ready') {
        clearTimeout(timer);
        if (!url) URL.revokeObjectURL(address);
        worker.onmessage = worker.onerror = null;
        resolve(worker);
      } else if (e.data.type === 'failed') fail(e.data.message);
    };
    if (url) worker.postMessage({ type: 'al-start', label });
  });
}

module.exports = { startWorker, workerSource, serveWorker, setEngineSource, metaAllows, scriptURL, MODEL_URL };
