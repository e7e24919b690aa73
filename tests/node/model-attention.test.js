'use strict';
// <model-attention>'s data without a browser: the parser (web/src/ui/attention-data.js) on
// every accepted shape and every structural mistake, lab.headSummary (the engine's check of
// the numbers and its scores) against a float64 reference, the head view's lines and the
// summary's order, and the browser tests' fixture page being current.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadAttentionLab } = require('./lab.js');
const { readAttentionData, parseAttentionData, pattern, metaLine, pairRange, pairView, LIMITS } = require('../../web/src/ui/attention-data.js');
const { readAuthorData } = require('../../web/src/ui/author-data.js');
const { headLines, strongest, LEVELS } = require('../../web/src/ui/head-lines.js');
const { sortRows, filterRows, presentScores } = require('../../web/src/ui/head-table.js');
const { fixtures, nested, base64Form, halfBits, fixturePage, PAGE, GPT2_TOKENS } = require('./fixtures/model-attention.js');

const TAG = 'model-attention';
// What <model-attention> gives readAuthorData: its own keys, and any other kept (a file's metadata).
const ModelAttentionKeys = { keys: require('../../web/src/ui/attention-data.js').KEYS, keepUnknown: true };
let lab, sets;
test.before(async () => {
  lab = await loadAttentionLab();
  sets = fixtures(lab);
});

const parse = (data) => parseAttentionData(TAG, data);
const refuses = (data, message) => assert.throws(() => parse(data), (err) => {
  assert.equal(err.message, message);
  return true;
});

/** Two heads over three tokens, causal, rows summing to 1: [heads][queries][keys]. */
const HEADS = [
  [[1, 0, 0], [0.5, 0.5, 0], [0.25, 0.25, 0.5]],
  [[1, 0, 0], [1, 0, 0], [0, 1, 0]],
];
const TOKENS = ['a', 'b', 'a'];

test('each accepted shape decodes to the same Float32Array [layers, heads, queries, keys]', () => {
  const flat = Float32Array.from(HEADS.flat(2));
  const forms = {
    'one layer [heads][queries][keys] (CircuitsVis [heads][dest][src])': HEADS,
    '[layers][heads][queries][keys] (transformers, batch dropped)': [HEADS],
    '{ shape, data } with an array': { shape: [1, 2, 3, 3], data: Array.from(flat) },
    '{ shape, data } with a Float32Array': { shape: [2, 3, 3], data: flat },
    '{ shape, dtype: float32, base64 }': base64Form({ shape: [1, 2, 3, 3], data: flat }, 'float32'),
    '{ shape, dtype: float16, base64 } (these weights are exact in float16)': base64Form({ shape: [2, 3, 3], data: flat }, 'float16'),
  };
  for (const [name, attentions] of Object.entries(forms)) {
    const set = parse({ tokens: TOKENS, attentions, causal: true });
    assert.deepEqual([set.layers, set.heads, set.m, set.n], [1, 2, 3, 3], name);
    assert.deepEqual(Array.from(set.weights), Array.from(flat), name);
    assert.deepEqual(Array.from(pattern(set, 0, 1)), HEADS[1].flat(), name);
    assert.equal(set.causal, true);
  }
  // A Float32Array is used as it is: nothing is copied.
  const data = new Float32Array(flat);
  assert.equal(parse({ tokens: TOKENS, attentions: { shape: [2, 3, 3], data } }).weights, data);
});

test('float16 base64 decodes every bit pattern as IEEE half precision, little-endian', () => {
  const values = [0, 1, 0.5, 0.333251953125, 2 ** -24, 65504, -2, Infinity, -Infinity];
  const set = parse({ tokens: values.map((_, i) => `t${i}`), queryTokens: ['q'], attentions: base64Form({ shape: [1, 1, values.length], data: Float32Array.from(values) }, 'float16') });
  assert.deepEqual(Array.from(set.weights), values);
  assert.ok(Number.isNaN(parse({ tokens: ['x'], attentions: { shape: [1, 1, 1], dtype: 'float16', base64: Buffer.from([0x01, 0x7e]).toString('base64') } }).weights[0]));
  assert.equal(halfBits(1 / 3), 0x3555, 'the fixture encoder rounds to nearest');
});

test('a large set is decoded one layer per step, so a widget can pause between layers', () => {
  const { set, steps } = readAttentionData(TAG, { tokens: GPT2_TOKENS, causal: true, attentions: base64Form(sets.gpt2.attentions, 'float32') });
  const done = [];
  for (const l of steps) done.push(l);
  assert.deepEqual(done, [0, 1, 2]);
  assert.deepEqual(Array.from(set.weights), Array.from(sets.gpt2.attentions.data));
});

test('cross-attention takes queryTokens for the rows; names, decimals and causal are kept', () => {
  const { cross } = sets;
  const set = parse({ ...cross, attentions: nested(cross.attentions), layerNames: ['decoder 0'], headNames: ['x', 'y'] });
  assert.deepEqual([set.m, set.n, set.queryTokens, set.causal], [4, 4, ['le', 'chat', "s'est", 'assis'], false]);
  assert.deepEqual([set.layerNames, set.headNames], [['decoder 0'], ['x', 'y']]);
  assert.equal(parse({ tokens: ['a', 'b'], queryTokens: ['q'], attentions: [[[0.5, 0.5]]] }).m, 1);
  assert.equal(parse({ tokens: TOKENS, attentions: HEADS, decimals: 3 }).decimals, 3);
});

test('the child JSON of a model-attention element is read with its own keys and a larger size limit', () => {
  const json = JSON.stringify({ tokens: TOKENS, attentions: HEADS, causal: true, layerNames: ['l'], headNames: ['p', 'q'], decimals: 2 });
  const data = readAuthorData(TAG, { tokens: null }, json, ModelAttentionKeys, 24000000);
  assert.deepEqual(parse(data).headNames, ['p', 'q']);
  assert.throws(() => readAuthorData(TAG, { tokens: null }, ' '.repeat(2000001), [], 2000000), /the JSON data is 2000001 characters long; expected at most 2000000/);
});

test('every structural mistake has its own message naming the element and the place', () => {
  const cases = [
    [{ attentions: HEADS }, 'tokens is missing; expected the tokens as a JSON array of strings, one per key'],
    [{ tokens: TOKENS }, 'attentions is missing; expected nested arrays [layers][heads][queries][keys] or [heads][queries][keys], { shape, data }, or { shape, dtype, base64 }'],
    [{ tokens: TOKENS, attentions: 'x' }, 'attentions is a string; expected nested arrays [layers][heads][queries][keys] or [heads][queries][keys], { shape, data }, or { shape, dtype, base64 }'],
    [{ tokens: TOKENS, attention: HEADS, model: 'gpt2' }, 'attentions is missing; expected nested arrays [layers][heads][queries][keys] or [heads][queries][keys], { shape, data }, or { shape, dtype, base64 }'],
    [{ tokens: TOKENS, attentions: HEADS, sentenceBStart: 3 }, 'sentenceBStart is 3; expected the position of sentence B\'s first token, a whole number from 1 to 2'],
    [{ tokens: TOKENS, attentions: HEADS, sentenceBStart: '1' }, 'sentenceBStart is a string; expected the position of sentence B\'s first token, a whole number from 1 to 2'],
    [{ tokens: TOKENS, queryTokens: TOKENS, attentions: HEADS, sentenceBStart: 1 }, 'sentenceBStart is 1; expected the position of sentence B\'s first token, a whole number from 1 to 2, and no queryTokens (a sentence pair is one text)'],
    // ragged at each depth
    [{ tokens: TOKENS, attentions: [HEADS, [HEADS[0]]] }, 'attentions is ragged: attentions[1] has 1 heads but the first has 2; expected one size throughout'],
    [{ tokens: TOKENS, attentions: [HEADS[0], HEADS[1].slice(0, 2)] }, 'attentions is ragged: attentions[1] has 2 rows but the first has 3; expected one size throughout'],
    [{ tokens: TOKENS, attentions: [HEADS[0], [[1, 0, 0], [1, 0], [0, 1, 0]]] }, 'attentions is ragged: attentions[1][1] has 2 entries but the first has 3; expected one size throughout'],
    [{ tokens: TOKENS, attentions: [HEADS[0], [[1, 0, 0], 5, [0, 1, 0]]] }, 'attentions[1][1] is a number; expected an array of 3 entries'],
    // leaves that are not numbers
    [{ tokens: TOKENS, attentions: [HEADS[0], [[1, 0, 0], [1, '0', 0], [0, 1, 0]]] }, 'attentions[1][1][1] is a string; expected a number'],
    [{ tokens: TOKENS, attentions: [[HEADS[0], [[1, 0, 0], [1, null, 0], [0, 1, 0]]]] },
      'attentions[0][1][1][1] is null; expected a number (JSON has no NaN: JSON.stringify writes NaN and infinities as null)'],
    // shapes
    [{ tokens: TOKENS, attentions: HEADS[0] }, 'attentions (nested arrays) has 2 axes ([3, 3]); expected [layers, heads, queries, keys] or [heads, queries, keys] (one head: wrap it in one more array)'],
    [{ tokens: TOKENS, attentions: [[HEADS], [HEADS]] }, 'attentions (nested arrays) has 5 axes ([2, 1, 2, 3, 3]); expected [layers, heads, queries, keys] or [heads, queries, keys] (drop the batch axis: one [heads][queries][keys] per layer)'],
    [{ tokens: ['a', 'b'], attentions: HEADS }, 'tokens has 2 entries but each attention pattern has 3 columns (keys); expected one token per key'],
    [{ tokens: TOKENS, queryTokens: ['q'], attentions: HEADS }, 'queryTokens has 1 entries but each attention pattern has 3 rows (queries); expected one token per query'],
    [{ tokens: TOKENS, attentions: [[[0.5, 0.25, 0.25], [0, 0, 1]]] }, 'each attention pattern is 2 x 3 (queries x keys); self-attention needs square patterns (give queryTokens for cross-attention)'],
    [{ tokens: TOKENS, queryTokens: TOKENS, attentions: HEADS, causal: true }, 'causal is true with queryTokens; a causal mask belongs to self-attention, where queries and keys are the same tokens'],
    [{ tokens: TOKENS, attentions: HEADS, causal: 'yes' }, 'causal is a string; expected true or false'],
    [{ tokens: TOKENS, attentions: HEADS, decimals: '3' }, 'decimals is a string; expected a whole number from 0 to 8'],
    [{ tokens: TOKENS, attentions: HEADS, headNames: ['p'] }, 'headNames has 1 names but the data has 2 heads; expected one per head'],
    [{ tokens: TOKENS, attentions: HEADS, layerNames: [3] }, 'layerNames must be a JSON array of strings, one per layer'],
    [{ tokens: TOKENS, attentions: HEADS, headNames: ['p', 'x'.repeat(41)] }, 'headNames[1] is 41 characters long; expected at most 40'],
    [{ tokens: ['a', '', 'c'], attentions: HEADS }, 'tokens must be words separated by spaces, or a JSON array of strings'],
    [{ tokens: TOKENS, queryTokens: 'a b', attentions: HEADS }, 'queryTokens must be words separated by spaces, or a JSON array of strings'],
    // flat and base64 forms
    [{ tokens: TOKENS, attentions: { shape: [2, 3, 3], data: [1, 2] } }, 'attentions.data has 2 numbers but shape [2, 3, 3] needs 18'],
    [{ tokens: TOKENS, attentions: { shape: [2, 3, 3], data: 'abc' } }, 'attentions.data is a string; expected a flat array of numbers'],
    [{ tokens: TOKENS, attentions: { shape: [2, 0, 3], data: [] } }, 'attentions.shape is [2, 0, 3]; expected whole numbers of at least 1 (entry 1 is 0)'],
    [{ tokens: TOKENS, attentions: { shape: 18, data: [] } }, 'attentions.shape is a number; expected an array such as [12, 12, 128, 128]'],
    [{ tokens: TOKENS, attentions: { shape: [2, 3, 3], data: [], scale: 1 } }, 'attentions has an unknown key "scale"; expected { shape, data } or { shape, dtype, base64 }'],
    [{ tokens: TOKENS, attentions: { shape: [2, 3, 3], dtype: 'float64', base64: '' } }, 'attentions.dtype is "float64"; expected "float16" or "float32"'],
    [{ tokens: TOKENS, attentions: { shape: [2, 3, 3], dtype: 'float16', base64: 'AAAA' } }, 'attentions.base64 holds 3 bytes but shape [2, 3, 3] in float16 needs 36 (2 per weight)'],
    [{ tokens: TOKENS, attentions: { shape: [2, 3, 3], dtype: 'float16', base64: 'AAA' } }, "attentions.base64 is 3 characters long; expected a multiple of 4 (base64 with its '=' padding)"],
    [{ tokens: TOKENS, attentions: { shape: [2, 3, 3], dtype: 'float16', base64: `${'A'.repeat(44)}!AAA` } }, 'attentions.base64 has "!" at character 44; expected base64 (A-Z, a-z, 0-9, +, /)'],
  ];
  for (const [data, message] of cases) refuses(data, `<${TAG}>: ${message}`);
});

test('a real file\'s metadata (model, sentence, source, licence, anything else) is kept, and refused nowhere; messages name only this element\'s keys', () => {
  const source = { repo: 'jessevig/bertviz', url: 'https://github.com/jessevig/bertviz' };
  const data = { model: 'gpt2', sentence: 'a b a', source, license: 'Apache-2.0', shape: [1, 2, 3, 3], Q: [[1]], colour: 'red', tokens: TOKENS, attentions: HEADS };
  // Through the child JSON's reader (as the element reads it) and then the attention reader.
  const read = readAuthorData(TAG, { tokens: null }, JSON.stringify(data), ModelAttentionKeys, 24000000);
  const set = parse(read);
  assert.deepEqual(set.meta, { model: 'gpt2', sentence: 'a b a', source, license: 'Apache-2.0', shape: [1, 2, 3, 3], Q: [[1]], colour: 'red' });
  assert.equal(metaLine(set), 'model: gpt2; sentence: a b a; license: Apache-2.0; source: https://github.com/jessevig/bertviz');
  // A message of this element lists its own keys, never another element's (Q, K, V, Wq).
  assert.throws(() => readAuthorData(TAG, { tokens: null }, '[1]', ModelAttentionKeys), (err) => {
    assert.equal(err.message, '<model-attention>: the data must be an object such as {"tokens": [...], "attentions": [[...]]}');
    return true;
  });
  assert.throws(() => readAuthorData(TAG, { tokens: null }, JSON.stringify({ tokens: 'a b' }), ModelAttentionKeys), /tokens must be words separated by spaces/);
  // An empty element (no JSON, no data) reads as no data: the element waits for it.
  assert.deepEqual(readAuthorData(TAG, { tokens: null }, null, ModelAttentionKeys), {});
  assert.deepEqual(readAuthorData(TAG, { tokens: null }, '  ', ModelAttentionKeys), {});
  // The heatmap's own reader still refuses what it does not know, listing its keys.
  assert.throws(() => readAuthorData('attention-heatmap', { tokens: null }, JSON.stringify({ model: 'x' }), ['options']), /unknown JSON key "model"; expected one of tokens, Q, K, V, X, Wq, Wk, Wv, options/);
});

test('a sentence pair: sentenceBStart kept, [CLS] and [SEP] marked special, and the A/B filters cut the right block', () => {
  const tokens = ['[CLS]', 'a', 'b', '[SEP]', 'c', '[SEP]'];
  const n = tokens.length;
  const w = Float32Array.from({ length: 2 * n * n }, (_, k) => k);  // weights that name their own place
  const set = parse({ tokens, attentions: { shape: [1, 2, n, n], data: w }, sentenceBStart: 4 });
  assert.equal(set.sentenceBStart, 4);
  assert.deepEqual(Array.from(set.special), [1, 0, 0, 1, 0, 1]);
  assert.deepEqual(pairRange(set, 'ab'), { rows: [0, 4], cols: [4, 6] });
  assert.deepEqual(pairRange(set, 'all'), { rows: [0, 6], cols: [0, 6] });
  assert.equal(pairView(set, 'all'), set);
  const ba = pairView(set, 'ba');
  assert.deepEqual([ba.m, ba.n, ba.queryTokens, ba.tokens, ba.offsets], [2, 4, ['c', '[SEP]'], ['[CLS]', 'a', 'b', '[SEP]'], { row: 4, col: 0 }]);
  // head 1, row 1 of the block = whole row 5, keys 0..3
  assert.deepEqual(Array.from(pattern(ba, 0, 1).subarray(4, 8)), [n * n + 5 * n, n * n + 5 * n + 1, n * n + 5 * n + 2, n * n + 5 * n + 3]);
  assert.deepEqual(Array.from(ba.querySpecial), [0, 1]);
});

test('the limits: tokens, layers, heads and weights, each with its own message', () => {
  const many = Array.from({ length: 257 }, (_, i) => `t${i}`);
  refuses({ tokens: many, attentions: { shape: [1, 1, 257, 257], dtype: 'float16', base64: '' } }, `<${TAG}>: 257 tokens is too many to draw; give at most 256`);
  const shape = (s) => ({ shape: s, data: new Float32Array(s.reduce((a, b) => a * b, 1)) });
  refuses({ tokens: ['a'], attentions: shape([65, 1, 1, 1]) }, `<${TAG}>: the data has 65 layers; expected at most 64`);
  refuses({ tokens: ['a'], attentions: shape([1, 65, 1, 1]) }, `<${TAG}>: the data has 65 heads; expected at most 64`);
  const toks = Array.from({ length: 256 }, (_, i) => `t${i}`);
  refuses({ tokens: toks, attentions: { shape: [8, 16, 256, 256], dtype: 'float16', base64: '' } },
    `<${TAG}>: the data has 8388608 weights (8 layers x 16 heads x 256 x 256); expected at most ${LIMITS.weights}: keep fewer layers or a shorter text`);
  // 12 layers x 12 heads over 128 tokens is within them
  assert.ok(12 * 12 * 128 * 128 <= LIMITS.weights);
});

test('headSummary: scores of each head equal a float64 reference of their definitions', () => {
  const { gpt2 } = sets;
  const rows = lab.headSummary(gpt2.attentions, { tokens: gpt2.tokens, causal: true });
  const [L, H, n] = gpt2.attentions.shape;
  assert.equal(rows.length, L * H);
  for (const r of rows) {
    const p = Array.from({ length: n }, (_, i) => Array.from(gpt2.attentions.data.subarray(((r.layer * H + r.head) * n + i) * n, ((r.layer * H + r.head) * n + i + 1) * n)));
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const later = p.slice(1);
    const entropy = mean(p.map((row) => -row.reduce((s, w) => s + (w > 0 ? w * Math.log(w) : 0), 0)));
    const repeat = p.map((row, i) => ({ row, i })).filter(({ i }) => gpt2.tokens.slice(0, i).includes(gpt2.tokens[i]));
    const prefix = mean(repeat.map(({ row, i }) => row.reduce((s, w, j) => s + (j >= 1 && j <= i && gpt2.tokens[j - 1] === gpt2.tokens[i] ? w : 0), 0)));
    const expected = { entropy, previousToken: mean(later.map((row, k) => row[k])), firstToken: mean(later.map((row) => row[0])), diagonal: mean(later.map((row, k) => row[k + 1])), prefixMatching: prefix };
    for (const [key, value] of Object.entries(expected)) assert.ok(Math.abs(r[key] - value) < 1e-9, `layer ${r.layer} head ${r.head} ${key}: ${r[key]} vs ${value}`);
  }
  // The fixture's built heads score as built: a previous-token head, sinks, an induction head.
  const at = (l, h) => rows[l * H + h];
  assert.ok(at(0, 1).previousToken > 0.9 && at(2, 2).previousToken > 0.9);
  assert.ok(at(0, 2).firstToken > 0.99 && at(1, 3).firstToken > 0.99);
  assert.ok(at(1, 0).prefixMatching > 0.85);
});

/** Every score of one head by its definition, in float64 (rows: the head's m x n weights as arrays). */
function referenceScores(p, tokens, causal) {
  const n = p.length;
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const special = tokens.map((t) => /^\[(CLS|SEP)\]$/.test(t));
  const later = p.slice(1);
  const repeat = p.map((row, i) => ({ row, i })).filter(({ i }) => tokens.slice(0, i).includes(tokens[i]));
  const anySpecial = special.some((x, j) => j > 0 && x);
  return {
    entropy: mean(p.map((row) => -row.reduce((s, w) => s + (w > 0 ? w * Math.log(w) : 0), 0))),
    previousToken: mean(later.map((row, k) => row[k])),
    firstToken: mean(later.map((row) => row[0])),
    diagonal: mean(later.map((row, k) => row[k + 1])),
    nextToken: causal ? null : mean(p.slice(0, n - 1).map((row, i) => row[i + 1])),
    specialTokens: anySpecial ? mean(later.map((row) => row.reduce((s, w, j) => s + (j > 0 && special[j] ? w : 0), 0))) : null,
    prefixMatching: causal ? mean(repeat.map(({ row, i }) => row.reduce((s, w, j) => s + (j >= 1 && j <= i && tokens[j - 1] === tokens[i] ? w : 0), 0))) : null,
  };
}

test('headSummary on real GPT-2 and BERT attention (the full-precision fixtures): every score equals a float64 reference; what does not apply is null', () => {
  const dir = path.join(__dirname, '..', 'fixtures', 'real-attention');
  for (const [file, causal] of [['gpt2-quick-brown-fox.json', true], ['bert-cat-mat.json', false]]) {
    const d = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const rows = lab.headSummary(d.attentions, { tokens: d.tokens, causal });
    assert.equal(rows.length, 144);
    for (const r of rows) {
      const expected = referenceScores(d.attentions[r.layer][r.head], d.tokens, causal);
      for (const [key, value] of Object.entries(expected)) {
        if (value === null) assert.equal(r[key], null, `${file} ${r.layer}.${r.head} ${key}`);
        else assert.ok(Math.abs(r[key] - value) < 1e-9, `${file} ${r.layer}.${r.head} ${key}: ${r[key]} vs ${value}`);
      }
    }
  }
});

test('headSummary: cross-attention has only an entropy; without tokens no prefix matching; rank 3 is one layer', () => {
  const { cross } = sets;
  const rows = lab.headSummary(cross.attentions, { tokens: cross.tokens, queryTokens: cross.queryTokens });
  assert.deepEqual(rows.map((r) => [r.layer, r.head, r.previousToken, r.firstToken, r.diagonal, r.prefixMatching]), [[0, 0, null, null, null, null], [0, 1, null, null, null, null]]);
  assert.ok(rows.every((r) => r.entropy > 0));
  const one = lab.headSummary(HEADS, { causal: true });
  assert.deepEqual(one.map((r) => [r.layer, r.head, r.prefixMatching]), [[0, 0, null], [0, 1, null]]);
  assert.deepEqual(lab.headSummary(HEADS, { tokens: TOKENS, causal: true }).map((r) => r.prefixMatching), [0.25, 1]);
  // Without a causal mask a head may read the whole text: prefix matching does not apply, the next token does.
  const bidirectional = lab.headSummary(HEADS, { tokens: TOKENS });
  assert.deepEqual(bidirectional.map((r) => [r.prefixMatching, r.nextToken]), [[null, 0], [null, 0]]);
  assert.deepEqual(lab.headSummary(HEADS, { tokens: TOKENS, causal: true }).map((r) => r.nextToken), [null, null]);
});

test('headSummary refuses numbers that are not attention weights, naming the entry or row, and stays usable', () => {
  const bad = (change, options, message, problem) => {
    const p = JSON.parse(JSON.stringify([HEADS, HEADS]));
    change(p);
    assert.throws(() => lab.headSummary(p, options), (err) => {
      assert.equal(err.message, message);
      if (problem) assert.deepEqual(err.problem, problem);
      return true;
    });
  };
  bad((p) => { p[1][0][2][1] = NaN; }, {}, 'headSummary: attentions[1][0][2][1] is NaN; expected weights from 0 to 1',
    { fault: 'not-finite', layer: 1, head: 0, row: 2, column: 1, value: NaN, tolerance: 0 });
  bad((p) => { p[0][1][1][2] = Infinity; }, {}, 'headSummary: attentions[0][1][1][2] is Infinity; expected weights from 0 to 1');
  bad((p) => { p[1][1][2] = [-0.5, 1, 0.5]; }, {}, 'headSummary: attentions[1][1][2][0] is -0.5; expected weights of 0 or more');
  bad((p) => { p[0][0][1] = [0.5, 0.4, 0]; }, {}, 'headSummary: attentions[0][0][1] sums to 0.9; expected 1 within 0.001 (or all 0: a row that sees no key)',
    { fault: 'row-sum', layer: 0, head: 0, row: 1, column: 0, value: 0.9000000059604645, tolerance: 0.001 });
  bad((p) => { p[1][0][0] = [0.5, 0.5, 0]; }, { causal: true }, 'headSummary: attentions[1][0][0][1] is 0.5, weight on a later key, but the patterns are causal; expected 0 (at most 1e-6)');
  // rounded to 2 decimals, a row may miss 1 by 0.001 + 3 x 0.005
  bad((p) => { p[0][0][2] = [0.3, 0.3, 0.3]; }, { decimals: 2 }, 'headSummary: attentions[0][0][2] sums to 0.9; expected 1 within 0.016 (or all 0: a row that sees no key)');
  assert.equal(lab.headSummary([[[0.33, 0.33, 0.33], [0.5, 0.5, 0], [1, 0, 0]]], { decimals: 2 }).length, 1);
  // rank 3: the head and row only
  assert.throws(() => lab.headSummary([[[1, 1]]], { queryTokens: ['q'] }), /^Error: headSummary: attentions\[0\]\[0\] sums to 2;/);
  // arguments
  assert.throws(() => lab.headSummary(HEADS, { tokens: ['a'] }), { message: 'headSummary: tokens has 1 entries but attentions has 3 keys (its last axis); expected one token per key' });
  assert.throws(() => lab.headSummary(HEADS, { tokens: 'a b a' }), { message: 'headSummary: tokens is a string; expected an array of strings' });
  assert.throws(() => lab.headSummary(HEADS, { decimals: 9 }), { message: 'headSummary: decimals = 9; expected a whole number from 0 to 8' });
  assert.throws(() => lab.headSummary(HEADS, { causal: 1 }), { message: 'headSummary: causal is a number; expected true or false' });
  assert.throws(() => lab.headSummary(HEADS, { colour: 1 }), { message: "headSummary: unknown option 'colour'; expected one of tokens, queryTokens, causal, decimals" });
  assert.throws(() => lab.headSummary([[1, 0], [0, 1]]), { message: 'headSummary: attentions has shape [2, 2]; expected [layers, heads, queries, keys] or [heads, queries, keys]' });
  assert.throws(() => lab.headSummary([[[0.5, 0.5]]]), { message: 'headSummary: self-attention patterns are square; got 1 queries and 2 keys' });
  assert.throws(() => lab.headSummary([[[1], [1]]], { tokens: ['a'], queryTokens: ['x', 'y'], causal: true }), { message: 'headSummary: causal is true with queryTokens; expected causal only for self-attention' });
  const before = lab.memory();
  for (let i = 0; i < 20; i++) assert.throws(() => lab.headSummary([[[0.2, 0.2], [0.5, 0.5]]]));
  assert.equal(lab.headSummary(HEADS).length, 2, 'still usable');
  const after = lab.memory();
  assert.deepEqual([after.heapInUse, after.handles], [before.heapInUse, before.handles], 'nothing leaks');
});

test('the head view keeps lines of at least 0.02, batched by opacity, and only the focused token\'s', () => {
  const set = parse({ tokens: TOKENS, attentions: [[[1, 0, 0], [0.5, 0.5, 0], [0.01, 0.49, 0.5]]] });
  const all = headLines(set, 0, [0]);
  const pairs = all.flatMap((g) => { const out = []; for (let k = 0; k < g.pairs.length; k += 2) out.push([g.pairs[k], g.pairs[k + 1], g.level]); return out; });
  assert.deepEqual(pairs.sort(), [[0, 0, LEVELS], [1, 0, 5], [1, 1, 5], [2, 1, 5], [2, 2, 5]].sort(), 'the 0.01 line is left out; 0.49 and 0.5 share a level');
  const key = headLines(set, 0, [0], { side: 'key', index: 1 }).flatMap((g) => g.pairs);
  assert.deepEqual(key, [1, 1, 2, 1]);
  assert.deepEqual(headLines(set, 0, [0], { side: 'query', index: 0 }).flatMap((g) => g.pairs), [0, 0]);
  assert.deepEqual(headLines(set, 0, []), []);
  assert.deepEqual(strongest(set, 0, [0], { side: 'query', index: 2 }), [{ head: 0, index: 2, weight: 0.5 }]);
  assert.deepEqual(strongest(set, 0, [0], { side: 'key', index: 0 }), [{ head: 0, index: 0, weight: 1 }]);
});

test('the summary sorts by any score (undefined scores last) and filters by one', () => {
  const rows = [
    { layer: 0, head: 0, entropy: 1, previousToken: 0.2, firstToken: 0.1, diagonal: 0.1, prefixMatching: null },
    { layer: 0, head: 1, entropy: 0.1, previousToken: 0.9, firstToken: 0, diagonal: 0, prefixMatching: 0.5 },
    { layer: 1, head: 0, entropy: 2, previousToken: 0.5, firstToken: 0.4, diagonal: 0.05, prefixMatching: 0.9 },
  ];
  const ids = (list) => list.map((r) => `${r.layer}.${r.head}`);
  assert.deepEqual(ids(sortRows(rows, 'previousToken', 'descending')), ['0.1', '1.0', '0.0']);
  assert.deepEqual(ids(sortRows(rows, 'entropy', 'ascending')), ['0.1', '0.0', '1.0']);
  assert.deepEqual(ids(sortRows(rows, 'prefixMatching', 'descending')), ['1.0', '0.1', '0.0']);
  assert.deepEqual(ids(sortRows(rows, 'prefixMatching', 'ascending')), ['0.1', '1.0', '0.0']);
  assert.deepEqual(ids(sortRows(rows, 'layer', 'descending')), ['1.0', '0.1', '0.0']);
  assert.deepEqual(ids(filterRows(rows, 'previousToken', 0.5)), ['0.1', '1.0']);
  assert.deepEqual(ids(filterRows(rows, 'prefixMatching', 0)), ['0.1', '1.0']);
  assert.deepEqual(ids(filterRows(rows, '', 0.5)), ['0.0', '0.1', '1.0']);
  const cross = rows.map((r) => ({ ...r, previousToken: null, firstToken: null, diagonal: null, prefixMatching: null }));
  assert.deepEqual(presentScores(cross).map((s) => s.key), ['entropy']);
});

test('the browser tests\' fixture page is what the fixture script makes from today\'s engine', () => {
  assert.equal(fs.readFileSync(PAGE, 'utf8'), fixturePage(lab), 'run node tests/node/fixtures/model-attention.js');
});
