'use strict';
// Where a widget's vectors come from: the author's Q, K, V; or the author's embeddings
// projected by the engine; or, for the author's own tokens, seeded engine-made vectors;
// or the built-in "time flies like an arrow" example.

const { seedFrom } = require('../ui/author-data.js');

function asMatrix(lab, t) {
  // [1, n, d] from a one-head projection -> [n, d]; a reshape, no arithmetic.
  return new lab.Tensor(t.shape.slice(1), t.data);
}

/**
 * @param tag the widget's element name, for messages
 * @returns { tokens, Q, K, V, X, Wq, Wk, Wv, source: 'author' | 'projected' | 'seeded' | 'example' }
 *   X and W are null when the author gave Q, K, V directly.
 */
function resolveInputs(lab, data, tag) {
  const example = lab.examples().timeFlies;
  const sameAsExample = !data.tokens || data.tokens.join(' ') === example.tokens.join(' ');
  const t = (value, name) => {
    try {
      return lab.tensor(value);
    } catch (err) {
      throw new Error(err.message.replace(/^tensor: value/, `<${tag}>: ${name}`));
    }
  };
  if (data.Q) {
    return { tokens: data.tokens, Q: t(data.Q, 'Q'), K: t(data.K, 'K'), V: t(data.V, 'V'), X: null, Wq: null, Wk: null, Wv: null, source: 'author' };
  }
  let X, Wq, Wk, Wv, source;
  if (data.X) {
    [X, Wq, Wk, Wv] = ['X', 'Wq', 'Wk', 'Wv'].map((k) => t(data[k], k));
    source = 'projected';
  } else if (!sameAsExample) {
    const seed = seedFrom(data.tokens.join(' '));
    X = lab.randomNormal({ shape: [data.tokens.length, 6], seed });
    Wq = lab.randomNormal({ shape: [6, 4], seed: seed + 1, stddev: 0.8 });
    Wk = lab.randomNormal({ shape: [6, 4], seed: seed + 2, stddev: 0.8 });
    Wv = lab.randomNormal({ shape: [6, 4], seed: seed + 3 });
    source = 'seeded';
  } else {
    return { ...example, source: 'example' };
  }
  const p = lab.multiHeadAttention({ X, Wq, Wk, Wv, heads: 1 });
  return { tokens: data.tokens, Q: asMatrix(lab, p.q), K: asMatrix(lab, p.k), V: asMatrix(lab, p.v), X, Wq, Wk, Wv, source };
}

/** Engine options from the author's JSON "options" (only the ones that make sense here). */
function authorOptions(data, allowed = ['causal', 'scale', 'scaling', 'temperature']) {
  const o = data.options || {};
  const out = {};
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) throw new Error(`options.${key} is not used by this widget; expected one of ${allowed.join(', ')}`);
    out[key] = o[key];
  }
  return out;
}

module.exports = { resolveInputs, authorOptions };
