'use strict';
// lab.mistake(name, spec) and lab.MISTAKES: classic attention mistakes, each computed by the
// engine (cpp/src/mistakes.cpp) next to the correct result. This side checks JavaScript types
// and structure and converts; names, shapes, values and every number are the engine's.

const { fromEngine } = require('./tensor.js');
const { own } = require('./options.js');
const { unwrap } = require('./call.js');

function pair(raw) {
  return { weights: fromEngine(raw.weights), output: fromEngine(raw.output) };
}

/** Nested arrays of booleans ([m][n], or [...batch][m][n]) from the engine's 0/1 cells tensor. */
function cellRows(raw) {
  const nest = (axis, offset) => {
    if (axis === raw.shape.length - 1) return Array.from(raw.data.subarray(offset, offset + raw.shape[axis]), (x) => x === 1);
    const stride = raw.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    return Array.from({ length: raw.shape[axis] }, (_, i) => nest(axis + 1, offset + i * stride));
  };
  return nest(0, 0);
}

/** The body of lab.mistake, spread into lab.js's bodies (lab.MISTAKES is the engine's catalog). */
function mistakesApi() {
  return {
    /**
     * One mistake beside the correct computation, for one head (no-causal-mask and
     * no-padding-mask also take leading batch axes, as attention does).
     * @param name one of MISTAKES[i].name
     * @param spec { Q [m, d_k], K [n, d_k], V [n, d_v], causal?, validLens?, mask? }
     * @returns { name, correct: { weights, output }, mistaken: { weights, output } | { error },
     *   difference: { weights, output } | null, figure,
     *   figures: [{ label, value, correctValue, row: [...batch, i] | null }], cells: boolean[][] }
     */
    mistake(e, [name, spec]) {
      const raw = unwrap(e.core.mistake(name, spec));
      const failed = own(raw.mistaken, 'error');
      return {
        name: raw.name,
        correct: pair(raw.correct),
        mistaken: typeof failed === 'string' ? { error: failed } : pair(raw.mistaken),
        difference: raw.difference ? pair(raw.difference) : null,
        figure: raw.figures[0],
        figures: raw.figures,
        cells: cellRows(raw.cells),
      };
    },
  };
}

module.exports = { mistakesApi };
