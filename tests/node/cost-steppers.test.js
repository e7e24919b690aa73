'use strict';
// The DOM-free parts of <online-softmax-stepper> and <kv-cache-stepper>: the steps, the
// sentences chosen from the engine's numbers, the judging of predictions, and the picking of
// tokens and heads, against the engine and against the float64 reference.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const reference = require('./reference.js');
const online = require('../../web/src/ui/online-softmax.js');
const kv = require('../../web/src/ui/kv-cache.js');
const { num, grouped } = require('../../web/src/ui/format.js');

let lab;
test.before(async () => { lab = await loadAttentionLab(); });

const TOKENS = ['time', 'flies', 'like', 'an', 'arrow'];

test('the online-softmax steps are a start, one step per engine block, and a final division', () => {
  const { Q, K, V } = lab.examples().timeFlies;
  const e = lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2 });
  const steps = online.stepsOf(e);
  assert.deepEqual(steps.map((s) => s.id), ['start', 'block-1', 'block-2', 'block-3', 'finish']);
  assert.deepEqual(steps.slice(1, -1).map((s) => [s.block.start, s.block.end]), [[0, 2], [2, 4], [4, 5]]);
  assert.equal(online.keysOf(TOKENS, e.blocks[2]), 'key 5 ("arrow")');
  assert.equal(online.keysOf(TOKENS, e.blocks[0]), 'keys 1 to 2 ("time" to "flies")');
});

test('block narration names the case the engine\'s numbers show: first block, a raised max with its rescale factor, an unchanged max', () => {
  const { Q, K, V } = lab.examples().timeFlies;
  // Row "flies": scaled scores [0, 3, 0, 0, 4.5] in blocks of 2: the max starts at 3, stays, then rises to 4.5.
  const e = lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2 });
  const [b1, b2, b3] = e.blocks;
  assert.equal(b1.maxAfter, 3);
  assert.match(online.narrateBlock(TOKENS, e, 0), /first block with a visible key.*m = 3\b/);
  assert.ok(!online.asksAbout(b1), 'the first block gets no question: there is no running max before it');
  assert.ok(online.asksAbout(b2) && !online.raisesMax(b2));
  assert.match(online.narrateBlock(TOKENS, e, 1), /is not above the running max 3, so m stays and the rescale factor is e\^0 = 1:/);
  assert.ok(online.raisesMax(b3));
  const text = online.narrateBlock(TOKENS, e, 2);
  assert.ok(text.includes(`e^(3 \u2212 4.5) = ${num(b3.rescale, 4)}`), text);
  assert.ok(Math.abs(b3.rescale - Math.exp(3 - 4.5)) < 1e-6, 'the engine\'s rescale factor is exp(m - m\')');
  assert.ok(text.includes(`from ${num(b3.sumBefore, 4)} to ${num(b3.sumAfter, 4)}`));
  // Before the learner answers, the sentence does not give the block's results away.
  const hidden = online.narrateBlock(TOKENS, e, 2, false);
  assert.ok(!hidden.includes(num(b3.rescale, 4)) && !hidden.includes(num(b3.sumAfter, 4)) && !/moves up|stays/.test(hidden), hidden);
});

test('a block the mask hides entirely is narrated as skipped, and the final division matches ordinary attention', () => {
  const { Q, K, V } = lab.examples().timeFlies;
  const e = lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2, causal: true });
  assert.deepEqual(e.blocks.map((b) => b.skipped), [false, true, true]);
  assert.match(online.narrateBlock(TOKENS, e, 1), /Every one of them is masked for "flies", so the kernel skips the block/);
  const diff = lab.maxAbsDiff(lab.tensor([e.output]), lab.tensor([e.fullOutput]));
  const ref = reference.attentionHead(Q.toArray(), K.toArray(), V.toArray(), 0.5, (i, j) => j <= i).output[1];
  e.output.forEach((x, c) => assert.ok(Math.abs(x - ref[c]) < 1e-6, `output ${c} against the float64 reference`));
  const finish = online.narrateFinish(TOKENS, e, diff);
  assert.ok(finish.includes(`m + log l = ${num(e.lse, 4)}`), finish);
  assert.match(finish, diff === 0 ? /exactly the same numbers/ : /up to float32 rounding/);
  // The log-sum-exp alone does not rebuild a weight: the sentence says the score comes from Q
  // and K, and the rule it gives, weight = e^(s - lse), holds for every key the row sees.
  assert.doesNotMatch(finish, /all a backward pass needs/);
  assert.match(finish, /recomputes that key's score s from Q and K and takes e\^\(s − \(m \+ log l\)\)/);
  e.scores.forEach((s, j) => {
    if (s !== -Infinity) assert.ok(Math.abs(Math.exp(s - e.lse) - e.weights[j]) < 1e-6, `key ${j}: e^(s - lse) is its weight`);
  });
});

test('the "does the running max change?" prompt is judged from the engine\'s block, and says why', () => {
  const { Q, K, V } = lab.examples().timeFlies;
  const [, stays, rises] = lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2 }).blocks;
  assert.equal(online.judgeMaxChange('up', rises).close, true);
  assert.equal(online.judgeMaxChange('same', rises).close, false);
  assert.match(online.judgeMaxChange('same', rises).message, /^Not this time: .* so m becomes 4\.5 and the rescale factor is e\^\(3 \u2212 4\.5\) = 0\.2231\.$/);
  assert.equal(online.judgeMaxChange('same', stays).close, true);
  assert.equal(online.judgeMaxChange('up', stays).close, false);
});

test('KV cache helpers pick tokens and share heads by position only (no arithmetic)', () => {
  const data = Float32Array.from({ length: 2 * 3 * 2 }, (_, i) => i);  // [2 heads, 3 tokens, 2]
  const t = { shape: [2, 3, 2], data };
  assert.deepEqual(kv.tokenRows(t, 1), [[2, 3], [8, 9]]);
  assert.deepEqual(kv.prefix(t, 2), { shape: [2, 2, 2], data: Float32Array.from([0, 1, 2, 3, 6, 7, 8, 9]) });
  assert.deepEqual(kv.prefix(t, 3, 1).data, Float32Array.from([0, 1, 2, 3, 4, 5]));
  // 2 kv heads for 4 query heads: query heads 0 and 1 read kv head 0, heads 2 and 3 kv head 1.
  const shared = kv.shareHeads(t, 4);
  assert.deepEqual(shared.shape, [4, 3, 2]);
  assert.deepEqual(kv.tokenRows(shared, 0), [[0, 1], [0, 1], [6, 7], [6, 7]]);
  assert.throws(() => kv.shareHeads(t, 3), /2 key\/value heads do not divide 3 query heads/);
  assert.deepEqual(kv.cacheRows(kv.perHeadRows(kv.prefix(t, 2))), [[0, 1, 6, 7], [2, 3, 8, 9]]);
  assert.deepEqual(kv.kvChoices(4).map((c) => [c.name, c.kvHeads]), [['MHA', 4], ['GQA', 2], ['MQA', 1]]);
  assert.equal(kv.bytesText(1536), '1,536 bytes');
  assert.equal(kv.bytesText(64 * 1024), '64 KiB');
});

test('the engine\'s cache, fed through the helpers, gives full causal attention\'s row at every step, for MHA, GQA and MQA', () => {
  const heads = 4, d = 4, n = 6;
  const Q = lab.randomNormal({ shape: [heads, n, d], seed: 11 });
  const Kall = lab.randomNormal({ shape: [heads, n, d], seed: 12 });
  const Vall = lab.randomNormal({ shape: [heads, n, d], seed: 13 });
  for (const kvHeads of [4, 2, 1]) {
    const K = kv.prefix(Kall, n, kvHeads), V = kv.prefix(Vall, n, kvHeads);
    const cache = lab.createKVCache({ heads, kvHeads, dHead: d, maxLength: n });
    const Ks = kv.shareHeads(K, heads), Vs = kv.shareHeads(V, heads);
    for (let t = 0; t < n; t++) {
      cache.append(kv.tokenRows(K, t), kv.tokenRows(V, t));
      const r = cache.attend(kv.tokenRows(Q, t));
      // The float64 reference, head by head over the shared keys and values.
      for (let h = 0; h < heads; h++) {
        const rows = (x) => kv.perHeadRows(kv.prefix(x, t + 1))[h];
        const ref = reference.attentionHead(rows(Q), rows(Ks), rows(Vs), 1 / Math.sqrt(d), (i, j) => j <= i);
        assert.ok(reference.maxDiff(r.output.data.subarray(h * d, (h + 1) * d), ref.output[t]) < 1e-5, `h_kv = ${kvHeads}, step ${t}, head ${h}`);
      }
      assert.equal(cache.bytes, 2 * (t + 1) * kvHeads * d * 4);
    }
    cache.dispose();
  }
});

test('the doubling question is judged against the engine\'s own multiply-add counts', () => {
  const heads = 4, d = 4, n = 8;
  const cache = lab.createKVCache({ heads, kvHeads: heads, dHead: d, maxLength: n });
  const x = lab.randomNormal({ shape: [heads, n, d], seed: 3 });
  const figures = [];
  for (let t = 0; t < n; t++) {
    cache.append(kv.tokenRows(x, t), kv.tokenRows(x, t));
    const r = cache.attend(kv.tokenRows(x, t));
    figures.push(r);
  }
  cache.dispose();
  const spec = { from: 4, to: 8, small: figures[3].multiplyAddsWithoutCache, large: figures[7].multiplyAddsWithoutCache,
    withSmall: figures[3].multiplyAdds, withLarge: figures[7].multiplyAdds };
  const ratio = spec.large / spec.small;
  assert.ok(ratio > 3 && ratio < 5, `without the cache, doubling the prefix costs about 4x (${ratio})`);
  assert.ok(Math.abs(spec.withLarge / spec.withSmall - 2) < 0.5, 'with the cache, about 2x');
  assert.equal(kv.judgeDoubling(4, spec).close, true);
  assert.equal(kv.judgeDoubling(2, spec).close, false);
  assert.ok(kv.judgeDoubling(2, spec).message.includes(grouped(spec.large)));
  const text = kv.narrateStep({ tokens: TOKENS, t: 3, heads, kvHeads: 2, multiplyAdds: spec.withSmall, withoutCache: null, bytes: 256, bytesPerToken: 64, diff: 0 });
  assert.ok(!text.includes(grouped(spec.small)) && text.includes('hidden until you answer'), 'the cost without the cache stays hidden before the answer');
  assert.match(text, /2 key\/value heads, each shared by 2 query heads/);
  assert.match(text, /row 4 of full causal attention over the same 4 tokens: exactly the same numbers/);
  // The counts are attention's alone, and the stepper says what a decoder without a cache also
  // recomputes: the engine's step counts nothing but scores and weighted sums.
  assert.equal(figures[7].multiplyAdds, heads * 8 * 2 * 4, 'with the cache: heads x length x (d_k + d_v), attention only');
  assert.equal(figures[7].multiplyAddsWithoutCache, heads * (8 * 9 / 2) * 2 * 4, 'without: the causal prefix, attention only');
  assert.match(text, /attention in this step takes/);
  assert.match(kv.judgeDoubling(2, spec).message, /without the cache, attention in the step at 8 tokens/);
  assert.match(kv.SCOPE_NOTE, /^These are the multiply-adds of attention itself, in one layer\./);
  assert.match(kv.SCOPE_NOTE, /keys and values of the earlier tokens are projections of each layer's input/);
  assert.match(kv.SCOPE_NOTE, /runs the whole network over the prefix again/);
});

test('the skip question counts the blocks the engine skips and names the keys the row sees', () => {
  const { Q, K, V } = lab.examples().timeFlies;
  // Row "flies" (index 1) under the causal mask in blocks of 2: it sees keys 1 and 2, so
  // block 1 is computed and blocks 2 and 3 (keys 3 to 5, all in its future) are skipped.
  const e = lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2, causal: true });
  assert.deepEqual(online.skippedBlocks(e), [1, 2]);
  assert.deepEqual(online.skipChoices(e).map((c) => c.label), ['none', '1', '2', '3']);
  const right = online.judgeSkips(2, TOKENS, e);
  assert.equal(right.close, true);
  assert.equal(right.message, 'Right: the query of "flies" sees keys 1 to 2; blocks 2 and 3 hold none of them, so the kernel skips 2 of the 3 ' +
    'without reading their keys or values. A block is skipped only when every key in it is masked.');
  assert.match(online.judgeSkips(0, TOKENS, e).message, /^Not quite: /);
  // Without a mask nothing is skipped, and the message says so.
  const open = lab.explainOnlineSoftmax(Q, K, V, 4, { block: 2, window: 5 });
  assert.deepEqual(online.skippedBlocks(open), []);
  assert.match(online.judgeSkips(0, TOKENS, open).message, /^Right: the query of "arrow" sees keys 1 to 5; every block holds at least one of them, so none of the 3 is skipped/);
});
