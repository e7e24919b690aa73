'use strict';
// Where a widget's vectors come from: the author's Q, K, V; or the author's embeddings
// projected by the engine; or, for the author's own tokens, seeded engine-made vectors;
// or the built-in "time flies like an arrow" example.

const { seedFrom } = require('../ui/author-data.js');
const { examples } = require('./engine.js');

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
  const example = examples(lab).timeFlies;
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

/**
 * Cross-attention inputs: queries from one sentence, keys and values from another, all
 * seeded from the words and projected by the engine.
 * @returns { tokens (keys), queryTokens, Q [m, 4], K [n, 4], V [n, 4], X: null, source: 'cross' }
 */
function resolveCrossInputs(lab, data, queryTokens, tag) {
  if (['Q', 'K', 'V', 'X'].some((k) => data[k] !== undefined)) {
    throw new Error(`<${tag}>: query-tokens works with seeded vectors; for your own vectors, leave it out and give Q (one row per query) with K and V in the JSON`);
  }
  if (!queryTokens.length) throw new Error(`<${tag}>: query-tokens is empty; give at least one word`);
  const keys = data.tokens || examples(lab).timeFlies.tokens;
  const seed = seedFrom(`${queryTokens.join(' ')}|${keys.join(' ')}`);
  const W = [1, 2, 3].map((k) => lab.randomNormal({ shape: [6, 4], seed: seed + k, stddev: k === 3 ? 1 : 0.8 }));
  const project = (words, salt) => lab.multiHeadAttention({
    X: lab.randomNormal({ shape: [words.length, 6], seed: seedFrom(words.join(' ')) + salt }), Wq: W[0], Wk: W[1], Wv: W[2], heads: 1,
  });
  const q = project(queryTokens, 0), kv = project(keys, 0);
  return { tokens: keys, queryTokens, Q: asMatrix(lab, q.q), K: asMatrix(lab, kv.k), V: asMatrix(lab, kv.v), X: null, source: 'cross' };
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

module.exports = { resolveInputs, resolveCrossInputs, authorOptions };
