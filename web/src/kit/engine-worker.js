'use strict';
// A Web Worker that runs this very script, for widgets whose engine work would block the page
// (the cost lab's measurements, the trainer's training). It is made from a Blob, so nothing is
// fetched and it works from file:// as well as over http: its source is this script (the build
// wraps the bundle in the named function attentionLabScript, see scripts/build.js) followed by
// the widget's `main`, called with the sources of `args` (functions or classes that use nothing
// from outside themselves). `main` posts { type: 'ready' } once its engine is loaded, or
// { type: 'failed', message }. Where the page's Content-Security-Policy forbids blob: workers
// (or the script was not built wrapped), start() rejects and the widget works on the page.

/* global attentionLabScript */

/** The worker's source, or null when this script was not built wrapped (tests importing web/src). */
function workerSource(main, args = []) {
  if (typeof attentionLabScript !== 'function') return null;
  return `(${attentionLabScript.toString()})();\n(${main.toString()})(${args.map((a) => a.toString()).join(', ')});\n`;
}

/**
 * Starts a worker running `main(...args)` and waits for its engine. Rejects (with an Error
 * whose message starts with `<label>: `) when the page does not allow it, the script cannot
 * provide its own source, or the engine fails to start there.
 */
function startWorker(main, args, label, timeoutMs = 30000) {
  const source = workerSource(main, args);
  if (!source) return Promise.reject(new Error(`${label}: this build of the script cannot start a worker`));
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    let worker;
    const fail = (err) => {
      clearTimeout(timer);
      if (worker) worker.terminate();
      URL.revokeObjectURL(url);
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const timer = setTimeout(() => fail(new Error(`${label}: the worker did not start`)), timeoutMs);
    try {
      worker = new Worker(url);
    } catch (err) {
      fail(err);
      return;
    }
    worker.onerror = (e) => {
      e.preventDefault();
      fail(new Error(`${label}: the worker could not run${e.message ? ` (${e.message})` : ''}`));
    };
    worker.onmessage = (e) => {
      if (e.data.type === 'ready') {
        clearTimeout(timer);
        URL.revokeObjectURL(url);
        worker.onmessage = null;
        worker.onerror = null;
        resolve(worker);
      } else if (e.data.type === 'failed') fail(new Error(e.data.message));
    };
  });
}

module.exports = { startWorker, workerSource };
