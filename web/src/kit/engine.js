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

// The engine calls widgets start with, and the widgets (CSS selectors) that make them.
const FIRST_CALLS = [
  ['attention-heatmap, padding-mask', (lab, { Q, K, V }) => lab.attention(Q, K, V, { causal: false, scaling: 'sqrt', temperature: 1 })],
  ['attention-stepper, softmax-demo, attention-worked-example', (lab, { Q, K, V }) => lab.explainRow(Q, K, V, 0)],
  // Words other than the example's get seeded vectors, projected by multiHeadAttention.
  ['multihead-view, [query-tokens], [tokens]:not([tokens="time flies like an arrow"])', (lab, { X, Wq, Wk, Wv }) => lab.multiHeadAttention({ X, Wq, Wk, Wv, heads: 1 })],
];

/**
 * The engine for widgets. It starts in a task of its own (not inside the parser's task that
 * met the first widget). Then, each in a task of its own and before any widget draws: the
 * built-in examples, which nearly every widget reads, are made once; and the first call of
 * each kind the widgets on the page will make runs once on them. The browser compiles each
 * wasm function on the main thread the first time it runs: done here, that compilation is
 * not part of a widget's first drawing.
 */
function getLab() {
  if (!loader) return Promise.reject(new Error('attention-lab: the engine loader is not set'));
  if (!starting) {
    const load = loader;
    const doc = typeof document === 'undefined' ? null : document;
    const warm = (lab, [selector, call]) => task().then(() => {
      try {
        if (doc && doc.querySelector(selector)) call(lab, examples(lab).timeFlies);
      } catch (_) { /* a widget that makes the same call shows the error */ }
    });
    starting = task().then(load).then((lab) => FIRST_CALLS.reduce((p, first) => p.then(() => warm(lab, first)), task().then(() => examples(lab)))
      .then(() => lab));
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
