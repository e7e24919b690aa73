'use strict';
// The training benchmark's FLOP count (scripts/bench-train.js, trainStepFlops) against a count
// made by hand, and its induction batches against the task's rule.
const test = require('node:test');
const assert = require('node:assert/strict');
const { trainStepFlops, inductionSequences } = require('../../scripts/bench-train.js');

test('one training step of a small model counts the FLOPs of every matrix product the engine runs', () => {
  // vocab 5, seqLen 4, 1 layer of 2 heads, dModel 4 (dHead 2), an MLP of 6, batch 3: 12 rows.
  const o = { vocab: 5, seqLen: 4, layers: 1, heads: 2, dModel: 4, mlp: 6, batch: 3 };
  // multiply-adds of the forward pass, product by product
  const qkv = 12 * 4 * 12;            // x [12, 4] Wqkv [4, 12]
  const scores = 3 * 2 * (4 * 2 * 4); // per sequence and head: q [4, 2] k^T [2, 4]
  const pv = 3 * 2 * (4 * 4 * 2);     // per sequence and head: p [4, 4] v [4, 2]
  const out = 12 * 4 * 4;             // merged [12, 4] Wo [4, 4]
  const mlpIn = 12 * 4 * 6;           // [12, 4] W1 [4, 6]
  const mlpOut = 12 * 6 * 4;          // [12, 6] W2 [6, 4]
  const unembed = 12 * 4 * 5;         // [12, 4] Wu [4, 5]
  const forward = qkv + scores + pv + out + mlpIn + mlpOut + unembed;
  assert.equal(forward, 1968);
  // backward: each linear layer's dx and dW cost one forward product each; attention's four
  // products (dV, dP, dQ, dK) are each the size of one of its two forward products
  const backward = 2 * (qkv + out + mlpIn + mlpOut + unembed) + 4 * scores;
  assert.equal(backward, 3936);
  const count = trainStepFlops(o);
  assert.equal(count.forward, 2 * forward);
  assert.equal(count.backward, 2 * backward);
  assert.equal(count.total, 2 * (forward + backward));
  assert.equal(count.total, 11808);
  assert.equal(count.products.length, 21);  // 5 linear layers x 3, and attention's 2 + 4
});

test('without an MLP and with more layers, only the blocks repeat and the unembedding is counted once', () => {
  const o = { vocab: 5, seqLen: 4, layers: 2, heads: 2, dModel: 4, mlp: 0, batch: 3 };
  const block = 12 * 4 * 12 + 3 * 2 * 32 + 3 * 2 * 32 + 12 * 4 * 4;
  const forward = 2 * block + 12 * 4 * 5;
  const count = trainStepFlops(o);
  assert.equal(count.forward, 2 * forward);
  assert.equal(count.total, 3 * count.forward);  // every forward product has two backward products of its size
});

test("the benchmark's induction batches follow the task's rule: a block of distinct tokens repeated", () => {
  const seqs = inductionSequences(200, 32, 32, 5);
  const lengths = new Set();
  for (const s of seqs) {
    assert.equal(s.length, 33);
    let L = 1;
    while (L < s.length && !s.slice(0, L).includes(s[L])) L++;
    assert.ok(L >= 4 && L <= 15, `block length ${L}`);
    lengths.add(L);
    s.forEach((t, i) => assert.equal(t, s[i % L]));
    for (const t of s) assert.ok(Number.isInteger(t) && t >= 0 && t < 32);
  }
  assert.equal(lengths.size, 12);  // every length from 4 to 15 occurs in 200 draws
  assert.deepEqual(inductionSequences(3, 32, 32, 5), seqs.slice(0, 3));  // seeded
});
