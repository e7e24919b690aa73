'use strict';
// lab.headSummary's and Model.headScores' prefixMatchingApart: prefix matching on the keys two or
// more before the query (the key after an earlier copy that is neither the query itself nor the
// token just before it), against a float64 reference of that definition, on real GPT-2 attention
// and on the shipped model's text where plain prefix matching credits a previous-token head.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const path = require('path');
const source = () => require(path.join(__dirname, '..', 'fixtures', 'real-attention', 'gpt2-quick-brown-fox.json'));  // full precision

/** The definition, in float64: per head, the mean over rows with such a key of their weight on those keys (null: no row). */
function reference(attentions, tokens) {
  const out = [];
  for (const layer of attentions) {
    for (const head of layer) {
      let sum = 0, rows = 0;
      head.forEach((row, i) => {
        const keys = [];
        for (let j = 1; j <= i - 2; j++) if (tokens[j - 1] === tokens[i]) keys.push(j);
        if (!keys.length) return;
        sum += keys.reduce((s, j) => s + row[j], 0);
        rows++;
      });
      out.push(rows ? sum / rows : null);
    }
  }
  return out;
}

let lab;
test.before(async () => { lab = await loadAttentionLab(); });

test('prefixMatchingApart equals its float64 definition on real GPT-2 attention with repeated tokens, and on the shipped model', () => {
  // GPT-2's sentence repeats no token: give its keys tokens that repeat, so every case of the definition occurs.
  const saved = source();
  const tokens = ['a', 'b', 'a', 'c', 'b', 'a', 'b', 'a', 'a', 'c'];
  const rows = lab.headSummary(saved.attentions, { tokens, causal: true });
  reference(saved.attentions, tokens).forEach((want, k) => {
    assert.ok(Math.abs(rows[k].prefixMatchingApart - want) < 1e-9, `head ${k}: ${rows[k].prefixMatchingApart} vs ${want}`);
  });
  const model = lab.loadModel();
  try {
    for (const text of ['The cat sat on the mat', 'a part of the body of a person. a part of the body of a', 'no repeats here']) {
      const a = model.attention(text);
      const want = reference(a.attentions, a.ids);
      const got = model.headScores(text).map((r) => r.prefixMatchingApart);
      got.forEach((g, k) => assert.ok(want[k] === null ? g === null : Math.abs(g - want[k]) < 1e-6, `${text}, head ${k}: ${g} vs ${want[k]}`));
      // headSummary on the model's attention with its token strings agrees where the strings repeat as the ids do.
      const summary = lab.headSummary(a.attentions, { tokens: a.tokens, causal: true }).map((r) => r.prefixMatchingApart);
      summary.forEach((s, k) => assert.ok(got[k] === null ? s === null : Math.abs(s - got[k]) < 1e-6));
    }
  } finally {
    model.dispose();
  }
});

test('on "The cat sat on the mat" plain prefix matching ranks the previous-token head 0.0 first; apart from the previous token it scores 0', () => {
  const model = lab.loadModel();
  try {
    const rows = model.headScores('The cat sat on the mat');
    const plain = rows.reduce((a, b) => (b.prefixMatching > a.prefixMatching ? b : a));
    assert.ok(plain.previousToken > 0.9, `the plain winner is a previous-token head (${plain.layer}.${plain.head})`);
    assert.ok(plain.prefixMatchingApart < 0.05, `and earns nothing apart (${plain.prefixMatchingApart})`);
    const apart = rows.reduce((a, b) => (b.prefixMatchingApart > a.prefixMatchingApart ? b : a));
    assert.equal(apart.layer, 1, 'apart from the previous token, the best head is in the second layer');
  } finally {
    model.dispose();
  }
});
