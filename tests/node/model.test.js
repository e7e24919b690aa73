'use strict';
// The shipped model (web/model/attention-lab-model.js) through lab.loadModel: its attention
// against the engine's own forward pass of the same weights (a Trainer loaded with them),
// predict against the engine's logits, bad input, what the file records, its size, and the
// heads and guesses the README reports.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { loadAttentionLab } = require('./lab.js');
const { SETTINGS, SHIPPED_FILE } = require('../../scripts/train-model.js');
const { sha256, FILES, WORDNET_DIR } = require('../../scripts/corpus.js');

const root = path.resolve(__dirname, '..', '..');
const shipped = require(SHIPPED_FILE);
const SENTENCE = 'The cat sat on the mat because it was tired.';
const REPEATED = 'a small dog ran across the garden to find its ball. a small dog ran across the garden to find its ball.';

let model;
test.before(async () => {
  model = (await loadAttentionLab()).loadModel();
});
test.after(() => model.dispose());

/** The rows of every head: [layer][head][i] summing to 1, nothing above the diagonal. */
function checkRows(attentions, n) {
  for (const layer of attentions) {
    for (const head of layer) {
      assert.equal(head.length, n);
      head.forEach((row, i) => {
        assert.equal(row.length, n);
        const sum = row.reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(sum - 1) < 1e-5, `a row sums to ${sum}`);
        for (let j = i + 1; j < n; j++) assert.equal(row[j], 0);
      });
    }
  }
}

test('loadModel() with no argument is the shipped model, with its tokenizer and shape', () => {
  assert.equal(model.name, 'wordnet-small');
  assert.equal(model.tokenizer.size, model.options.vocab);
  assert.equal(model.maxTokens, SETTINGS.model.seqLen);
  for (const [key, value] of Object.entries(SETTINGS.model)) assert.equal(model.options[key], value, key);
});

test("the model's attention is the engine's forward pass of the same weights, rows summing to 1", async () => {
  const lab = await loadAttentionLab();
  const r = model.attention(SENTENCE);
  assert.equal(r.tokens.join(''), SENTENCE);
  assert.equal(r.truncated, 0);
  assert.equal(r.causal, true);
  const { layers, heads } = model.options;
  assert.equal(r.attentions.length, layers);
  assert.ok(r.attentions.every((l) => l.length === heads));
  checkRows(r.attentions, r.tokens.length);
  // A trainer holding the file's weights (its training text: any stream of seqLen + 1 ids)
  const text = Array.from({ length: model.maxTokens + 1 }, (_, i) => r.ids[i % r.ids.length]);
  const trainer = lab.loadTrainer(shipped.weights, { text });
  try {
    const reference = trainer.attention(r.ids).patterns.toArray();
    assert.deepEqual(r.attentions, reference);
  } finally {
    trainer.dispose();
  }
});

test("predict lists the most probable next tokens, sorted, each the softmax of the engine's logits", () => {
  const p = model.predict(SENTENCE, { top: 10 });
  assert.equal(p.next.length, 10);
  const logits = model.logits(SENTENCE);
  assert.ok(logits instanceof Float32Array && logits.length === model.options.vocab);
  const top = Math.max(...logits);
  const total = logits.reduce((s, x) => s + Math.exp(x - top), 0);
  let sum = 0;
  p.next.forEach((g, i) => {
    assert.equal(g.token, model.tokenizer.pieces[g.id]);
    assert.ok(Math.abs(g.probability - Math.exp(logits[g.id] - top) / total) < 1e-9, `${g.token}: ${g.probability}`);
    if (i > 0) assert.ok(g.probability <= p.next[i - 1].probability);
    sum += g.probability;
  });
  assert.ok(sum <= 1 + 1e-12);
  const sorted = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b);
  assert.deepEqual(p.next.map((g) => g.id), sorted.slice(0, 10));
  assert.equal(model.predict(SENTENCE).next.length, 5, 'five by default');
});

test('bad input is refused by name, and the model stays usable', () => {
  assert.throws(() => model.attention(''), { message: 'Model.attention: text is empty; expected at least one character' });
  assert.throws(() => model.predict(7), { message: 'Model.predict: text is a number; expected a string' });
  const long = 'the cat sat on the mat. '.repeat(20);
  const n = model.tokenize(long).length;
  assert.throws(() => model.attention(long), {
    message: `Model.attention: text has ${n} tokens; expected at most ${model.maxTokens} (the model's context), or { truncate: true } to read the last ${model.maxTokens}`,
  });
  const cut = model.attention(long, { truncate: true });
  assert.equal(cut.truncated, n - model.maxTokens);
  assert.equal(cut.tokens.length, model.maxTokens);
  assert.equal(cut.tokens.join(''), long.slice(model.tokenize(long)[cut.truncated].start));
  assert.throws(() => model.predict('the cat', { top: 0 }), { message: 'Model.predict: top = 0; expected a whole number from 1 to 100' });
  assert.throws(() => model.predict('the cat', { top: 2.5 }), /^Error: Model\.predict: top = 2\.5; expected a whole number/);
  assert.throws(() => model.predict('the cat', { topk: 3 }), { message: 'Model.predict: unknown option \'topk\'; expected one of truncate, top' });
  assert.throws(() => model.attention('the cat', { truncate: 'yes' }), { message: 'Model.attention: truncate is a string; expected true or false' });
  assert.equal(model.predict('the cat').next.length, 5);
});

test('loadModel reads the file as bytes, as text and as its object, and refuses what is not a model', async () => {
  const lab = await loadAttentionLab();
  const bytes = fs.readFileSync(SHIPPED_FILE);
  const expected = model.predict(SENTENCE);
  for (const source of [bytes, new Uint8Array(bytes).buffer, bytes.toString('utf8'), JSON.stringify(shipped), shipped]) {
    const m = lab.loadModel(source);
    assert.deepEqual(m.predict(SENTENCE), expected);
    m.dispose();
  }
  assert.throws(() => lab.loadModel('gpt-2'), { message: "loadModel: no model named 'gpt-2' is loaded; expected one of: (none: add the model's script to the page)" });
  assert.throws(() => lab.loadModel('not a model at all'), /^Error: loadModel: the text is neither a model's JSON nor its script/);
  assert.throws(() => lab.loadModel({ ...shipped, format: 'x' }), /^Error: loadModel: format is "x"; expected 'attention-lab-model'/);
  assert.throws(() => lab.loadModel({ ...shipped, tokenizer: { ...shipped.tokenizer, merges: [] } }),
    { message: `loadModel: the tokenizer has ${1 + shipped.tokenizer.alphabet.length} pieces but the model's vocab is ${model.options.vocab}; expected the same number` });
  const broken = JSON.parse(JSON.stringify(shipped));
  broken.weights.parameters[1].data = broken.weights.parameters[1].data.slice(8);
  assert.throws(() => lab.loadModel(broken), /^Error: loadModel: positionEmbedding\.data holds \d+ bytes; expected \d+ \(\d+ float16 numbers\) for its shape/);
  const gone = lab.loadModel();
  gone.dispose();
  assert.throws(() => gone.predict('a'), { message: 'Model.predict: the model was disposed; expected a model from loadModel that is still live' });
  assert.deepEqual(model.predict(SENTENCE), expected, 'the shipped model still reads after the failures');
});

test('the model file stays within 1 MB gzip, beside the kit: the kit does not hold it', () => {
  const size = zlib.gzipSync(fs.readFileSync(SHIPPED_FILE), { level: 9 }).length;
  assert.ok(size <= 1024 * 1024, `web/model/attention-lab-model.js is ${size} B gzip -9`);
  const dist = path.join(root, 'dist', 'attention-lab-model.js');
  assert.ok(fs.readFileSync(dist).equals(fs.readFileSync(SHIPPED_FILE)), 'the build copies it to dist/ unchanged');
  const kit = fs.readFileSync(path.join(root, 'dist', 'attention-lab.js'), 'utf8');
  assert.ok(!kit.includes(shipped.weights.parameters[0].data.slice(0, 64)), 'no weights inside the kit');
});

test('the file records the command, the corpus hashes and the settings that made it', () => {
  const { about } = shipped;
  assert.equal(about.command, 'npm run train:model');
  assert.deepEqual(about.settings, SETTINGS, "the settings are scripts/train-model.js's");
  assert.deepEqual(about.corpus.files.map((f) => f.name), FILES);
  assert.ok(about.corpus.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256)));
  assert.equal(about.evaluation.loss > 0, true);
  const text = fs.readFileSync(SHIPPED_FILE, 'utf8');
  assert.match(text.slice(0, 2000), /WordNet 3\.0 Copyright 2006 by Princeton University\. All rights reserved\./);
});

test('the corpus files installed here are the ones the shipped model was trained on', { skip: !fs.existsSync(path.join(WORDNET_DIR, FILES[0])) && 'wordnet-base is not installed' }, () => {
  const installed = FILES.map((name) => ({ name, sha256: sha256(fs.readFileSync(path.join(WORDNET_DIR, name))) }));
  assert.deepEqual(installed, shipped.about.corpus.files);
});

test("on the learner's sentence one head looks at the previous token; on a repeated phrase one head is an induction head", () => {
  const plain = model.headScores(SENTENCE);
  const previous = plain.reduce((a, b) => (b.previousToken > a.previousToken ? b : a));
  assert.ok(previous.previousToken > 0.7, `best previous-token score ${previous.previousToken}`);
  const repeated = model.headScores(REPEATED);
  const induction = repeated.reduce((a, b) => (b.prefixMatching > a.prefixMatching ? b : a));
  assert.ok(induction.prefixMatching > 0.5, `best prefix-matching score ${induction.prefixMatching}`);
  assert.ok(plain.every((h) => h.prefixMatching === null || h.prefixMatching >= 0));
});

test('its guesses are sensible: the next piece of a repeated phrase and of a common phrase is among its top five', () => {
  // the phrase's second copy goes on as the first did: with " garden", whose first piece the
  // tokenizer decides (" g" with 512 pieces), so the test asks for that piece
  const garden = model.tokenize(' garden')[0].text;
  const cases = [
    ['a small dog ran across the garden to find its ball. a small dog ran across the', garden],
    ['the act of', ' a'],
  ];
  for (const [text, word] of cases) {
    const guesses = model.predict(text).next.map((g) => g.token);
    assert.ok(guesses.includes(word), `${JSON.stringify(text)}: ${JSON.stringify(word)} not in ${JSON.stringify(guesses)}`);
  }
});

// ---- refusals before anything is taken, weights that cannot work, and the smaller checks (issue 27) ----

/** The shipped model file with `change(weights file)` applied to a deep copy. */
function shippedWith(change) {
  const copy = JSON.parse(JSON.stringify(shipped));
  change(copy.weights, copy);
  return copy;
}

test('a model file that does not fit is refused before the engine takes any memory', async () => {
  const lab = await loadAttentionLab();
  const before = lab.memory();
  const cases = [
    // options the tokenizer does not fit, of a model that would take 130 MB
    [shippedWith((w) => Object.assign(w.options, { vocab: 8000, seqLen: 256, dModel: 512 })), /^loadModel: the tokenizer has 512 pieces but the model's vocab is 8000/],
    [shippedWith((w) => { w.parameters.pop(); }), /^loadModel: the file has \d+ weight tensors; expected \d+ for its options/],
    [shippedWith((w) => { w.version = 2; }), /^loadModel: weights\.version is 2; expected 1/],
    [shippedWith((w) => { w.format = 'x'; }), /^loadModel: weights\.format is "x"; expected 'attention-lab-weights'/],
    [shippedWith((w) => { w.step = -1; }), /^loadModel: weights\.step is -1; expected the number of updates made, a whole number from 0/],
    [shippedWith((w, m) => { delete m.tokenizer; }), /^loadModel: tokenizer is undefined; expected an object \{ kind, unknown, alphabet, merges \}/],
  ];
  for (const [file, message] of cases) assert.throws(() => lab.loadModel(file), { message });
  const after = lab.memory();
  assert.equal(after.heapSize, before.heapSize, 'the engine\'s heap did not grow');
  assert.equal(after.heapInUse, before.heapInUse, 'nothing left in use');
});

test('weights whose forward pass could overflow are refused at load, naming the tensor; the shipped model passes', async () => {
  const lab = await loadAttentionLab();
  // a small model without layer norm, then its unembedding set to 1e10
  const tr = lab.createTrainer({ vocab: 6, seqLen: 4, layers: 1, heads: 1, dModel: 4, batch: 2, seed: 3 });
  const weights = tr.exportWeights();
  tr.dispose();
  const file = {
    format: 'attention-lab-model', version: 1, name: 'tiny', about: {},
    tokenizer: { kind: 'bpe', unknown: '?', alphabet: ['a', 'b', 'c'], merges: [[1, 2], [4, 3]] }, weights,
  };
  const ok = lab.loadModel(file);
  assert.ok(ok.headScores('abcab').every((h) => Number.isFinite(h.entropy)));
  ok.dispose();
  const huge = JSON.parse(JSON.stringify(file));
  const u = huge.weights.parameters.find((p) => p.name === 'unembedding');
  u.data = Buffer.from(new Float32Array(4 * 6).fill(1e10).buffer).toString('base64');
  assert.throws(() => lab.loadModel(huge), { message: /^loadModel: unembedding can take the forward pass to \S+ \(a bound over every input\); expected weights that keep every activation within 1000000000000/ });
  assert.equal(huge.weights.options.layerNorm, false);
  assert.deepEqual(model.predict(SENTENCE).next.length, 5, 'the shipped model still reads');
});

test('a detached buffer and a 10 MB string are refused by name, the string cut in the message', async () => {
  const lab = await loadAttentionLab();
  const view = new Uint8Array(16), detached = view.buffer;
  structuredClone(detached, { transfer: [detached] });
  for (const source of [detached, view]) {
    assert.throws(() => lab.loadModel(source), { message: "loadModel: source's ArrayBuffer is detached (transferred); expected the bytes of a model file" });
  }
  const long = 'x'.repeat(1e7);
  for (const call of [() => lab.loadModel(long.replace(/^x/, 'y')), () => lab.loadModel(long)]) {
    assert.throws(call, (err) => err instanceof Error && err.message.startsWith('loadModel: ') && err.message.length < 300);
  }
  assert.throws(() => lab.loadModel(long), { message: /^loadModel: no model named 'x{40}\.\.\. \(10000000 characters\)' is loaded/ });
});
