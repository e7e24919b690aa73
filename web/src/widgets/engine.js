'use strict';
// The one engine every widget on a page shares, and the built-in examples they share.

let loader = null;
let starting = null;
const shared = new WeakMap();

function setLoader(fn) {
  loader = fn;
  starting = null;
}

/** A new task, so the page can paint and handle input between two pieces of work. */
function task() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The engine for widgets. It starts in a task of its own (not inside the parser's task that
 * met the first widget), and the built-in examples, which nearly every widget reads and whose
 * first computation also warms up the engine, are made once in another task before any widget
 * draws.
 */
function getLab() {
  if (!loader) return Promise.reject(new Error('attention-lab: the engine loader is not set'));
  if (!starting) {
    const load = loader;
    starting = task().then(load).then((lab) => task().then(() => {
      examples(lab);
      return lab;
    }));
  }
  return starting;
}

/** lab.examples(), made once per engine: { timeFlies, worked } (read only). */
function examples(lab) {
  let ex = shared.get(lab);
  if (!ex) {
    ex = lab.examples();
    shared.set(lab, ex);
  }
  return ex;
}

module.exports = { setLoader, getLab, examples };
