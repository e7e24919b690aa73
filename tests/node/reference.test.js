'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { random, randomNested, attentionHead, perBatch, maxDiff } = require('./reference.js');

test('random shapes with batch and head axes, m != n, d_v != d_k, and masks match the float64 reference', async (t) => {
  const lab = await loadAttentionLab();
  const rand = random(2024);
  const int = (lo, hi) => Math.floor(rand(lo, hi + 1));
  let worstOverall = 0;
  for (let trial = 0; trial < 60; trial++) {
    const lead = Array.from({ length: int(0, 2) }, () => int(1, 3));
    const m = int(1, 9), n = int(1, 12), dk = int(1, 16), dv = int(1, 10);
    const Q = randomNested([...lead, m, dk], rand);
    const K = randomNested([...lead, n, dk], rand);
    const V = randomNested([...lead, n, dv], rand);
    const options = {};
    const kind = trial % 4;  // none, causal, validLens per batch element, explicit mask + scale
    if (kind === 1) options.causal = true;
    let lens = null, mask = null;
    if (kind === 2) {
      lens = randomNested(lead, () => int(0, n));
      options.validLens = lead.length ? lens : lens;
    }
    if (kind === 3) {
      mask = randomNested([m, n], () => rand() > -0.4);
      options.mask = mask;
      options.scale = rand(0.1, 2);
    }
    const scale = options.scale ?? 1 / Math.sqrt(dk);
    const r = lab.attention(Q, K, V, options);
    let batchIndex = 0;
    const want = perBatch(lead.length, [Q, K, V], (q, k, v) => {
      const b = batchIndex++;
      const lensFlat = lens === null ? null : [].concat(lens).flat(Infinity);
      const allow = (i, j) => {
        if (kind === 1 && j > i + (n - m)) return false;
        if (kind === 2 && j >= (lead.length ? lensFlat[b] : lens)) return false;
        if (kind === 3 && !mask[i][j]) return false;
        return true;
      };
      return attentionHead(q, k, v, scale, allow);
    });
    const pick = (key) => perBatch(lead.length, [want], (h) => h[key]);
    const worst = Math.max(maxDiff(r.scores.data, pick('scores')), maxDiff(r.scaled.data, pick('scaled')),
      maxDiff(r.weights.data, pick('weights')), maxDiff(r.output.data, pick('output')));
    worstOverall = Math.max(worstOverall, worst);
    assert.deepEqual(r.output.shape, [...lead, m, dv]);
    assert.deepEqual(r.weights.shape, [...lead, m, n]);
    assert.ok(worst < 2e-5, `trial ${trial} lead ${JSON.stringify(lead)} m ${m} n ${n} dk ${dk} dv ${dv}: max diff ${worst}`);
    assert.ok(r.weights.data.every(Number.isFinite) && r.output.data.every(Number.isFinite), 'no NaN or infinity');
  }
  t.diagnostic(`max difference from the float64 reference over 60 random cases: ${worstOverall.toExponential(2)}`);
});

test('valid lengths per query row and a mask broadcast over heads match the reference', async () => {
  const lab = await loadAttentionLab();
  const rand = random(77);
  const Q = randomNested([2, 3, 4, 5], rand), K = randomNested([2, 3, 6, 5], rand), V = randomNested([2, 3, 6, 2], rand);
  const lens = [[[6, 3, 1, 0], [2, 2, 2, 2], [6, 6, 6, 6]], [[1, 2, 3, 4], [5, 6, 5, 6], [0, 0, 0, 0]]];
  const r = lab.attention(Q, K, V, { validLens: lens, causal: true });
  const want = [0, 1].map((b) => [0, 1, 2].map((h) => attentionHead(Q[b][h], K[b][h], V[b][h], 1 / Math.sqrt(5),
    (i, j) => j < lens[b][h][i] && j <= i + 2)));
  assert.ok(maxDiff(r.weights.data, want.map((bb) => bb.map((x) => x.weights))) < 1e-6);
  assert.ok(maxDiff(r.output.data, want.map((bb) => bb.map((x) => x.output))) < 1e-5);
  const masked = r.fullyMaskedRows.map((ix) => ix.join(','));
  assert.ok(masked.includes('0,0,3') && masked.includes('1,2,0'), JSON.stringify(r.fullyMaskedRows));
});
