'use strict';
// lab.mistake(name, spec) and lab.MISTAKES: classic attention mistakes, each computed by the
// engine (cpp/src/mistakes.cpp) next to the correct result. This side checks JavaScript types
// and structure and converts; names, shapes, values and every number are the engine's.

const { fromEngine, toInput, describe } = require('./tensor.js');
const { checkSpec, boolOption } = require('./options.js');

const SPEC_KEYS = ['Q', 'K', 'V', 'causal', 'validLens', 'mask'];

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

/**
 * The mistakes' part of the lab object, spread into it by lab.js.
 * @param core the embind module; ctx what tensor.js needs; unwrap turns { error } into a throw
 */
function mistakesApi(core, ctx, unwrap) {
  // Read from the engine on first use rather than while it starts.
  let catalog = null;
  const MISTAKES = () => catalog || (catalog = Object.freeze(core.mistakeCatalog().map((m) => Object.freeze(m))));
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
    mistake(name, spec) {
      const fn = 'mistake';
      if (typeof name !== 'string') {
        throw new Error(`${fn}: name is ${describe(name)}; expected a string, one of ${MISTAKES().map((m) => m.name).join(', ')}`);
      }
      const o = checkSpec(fn, spec, SPEC_KEYS);
      const args = {
        Q: toInput(o.Q, fn, 'Q', ctx),
        K: toInput(o.K, fn, 'K', ctx),
        V: toInput(o.V, fn, 'V', ctx),
        causal: boolOption(fn, o, 'causal'),
      };
      if (o.validLens !== undefined && o.validLens !== null) args.validLens = toInput(o.validLens, fn, 'validLens', ctx);
      if (o.mask !== undefined && o.mask !== null) args.mask = toInput(o.mask, fn, 'mask', ctx, true);
      const raw = unwrap(core.mistake(name, args));
      return {
        name: raw.name,
        correct: pair(raw.correct),
        mistaken: typeof raw.mistaken.error === 'string' ? { error: raw.mistaken.error } : pair(raw.mistaken),
        difference: raw.difference ? pair(raw.difference) : null,
        figure: raw.figures[0],
        figures: raw.figures,
        cells: cellRows(raw.cells),
      };
    },

    /** Every mistake: [{ name, title, symptom, fix }], in teaching order. */
    get MISTAKES() {
      return MISTAKES();
    },
  };
}

module.exports = { mistakesApi };
