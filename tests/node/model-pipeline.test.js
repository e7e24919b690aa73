'use strict';
// npm run train:model end to end, short: the same pipeline (corpus, vocabulary, tokens,
// the engine's trainer, float16 weights, the model script) on a committed sample of WordNet's
// files (tests/node/fixtures/wordnet-sample: the first synsets of each data file, with the
// licence lines that open it), twice, giving the same bytes.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadAttentionLab } = require('./lab.js');
const { trainModel, copyingSequences, SETTINGS } = require('../../scripts/train-model.js');
const { sha256, FILES } = require('../../scripts/corpus.js');

const SAMPLE = path.join(__dirname, 'fixtures', 'wordnet-sample');
// dModel 32: with 16, 200 steps of text lowered the loss by only 0.12 nats, too little to tell learning from noise
const SMALL = {
  vocabulary: { size: 160, minCharCount: 3 },
  model: { seqLen: 16, layers: 1, heads: 2, dModel: 32, mlp: 64, activation: 'gelu', layerNorm: true },
  copying: { windows: 500, shortest: 3, longest: 7, scoreFrom: 8, batch: 8, lr: 1e-2, weightDecay: 0, warmupSteps: 10, seed: 1, steps: 100 },
  training: { batch: 16, lr: 1e-2, weightDecay: 0, warmupSteps: 20, decaySteps: 180, minLr: 1e-3, repeats: 0.5, seed: 1, steps: 200 },
  dtype: 'float16',
};

let first = null;
const run = async () => trainModel(await loadAttentionLab(), { wordnetDir: SAMPLE, settings: SMALL, name: 'sample' });

test('a short run of the pipeline on the WordNet sample writes a model script that records how it was made', async () => {
  first = await run();
  const { model, script } = first;
  assert.ok(script.startsWith('/*!\n * attention-lab model'), 'the script opens with its notice');
  assert.match(script, /WordNet 3\.0 Copyright 2006 by Princeton University\. All rights reserved\./);
  assert.equal(model.about.command, 'npm run train:model');
  assert.deepEqual(model.about.corpus.files, FILES.map((name) => ({ name, sha256: sha256(fs.readFileSync(path.join(SAMPLE, name))) })));
  assert.deepEqual(model.about.settings, SMALL);
  assert.equal(model.weights.options.vocab, 160);
  assert.ok(model.weights.parameters.every((p) => p.dtype === 'float16'));
  assert.equal(model.about.meanLossPer100Steps.copying.length, 1);
  const losses = model.about.meanLossPer100Steps.text;
  assert.equal(losses.length, 2);
  assert.ok(losses[1] < losses[0] - 0.2, `the loss falls: ${losses}`);
  const uniform = Math.log(160);
  assert.ok(model.about.evaluation.loss < uniform - 0.3, `it learned: evaluation loss ${model.about.evaluation.loss} against ${uniform} for a uniform guess`);
  assert.deepEqual(Object.keys(SETTINGS).sort(), Object.keys(SMALL).sort(), 'the shipped settings have the same fields');
  for (const stage of ['copying', 'training']) assert.deepEqual(Object.keys(SETTINGS[stage]).sort(), Object.keys(SMALL[stage]).sort(), stage);
});

test('the copying stage reads windows spread over the whole text, each repeated to fill the context', () => {
  const ids = Array.from({ length: 1000 }, (_, i) => i);
  const seqs = copyingSequences(ids, { windows: 4, shortest: 3, longest: 5 }, 12);
  assert.deepEqual(seqs, [
    [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2],             // window 0: 3 tokens from 0
    [248, 249, 250, 251, 248, 249, 250, 251, 248, 249, 250, 251],  // window 1: 4 tokens from floor(995 / 4)
    [497, 498, 499, 500, 501, 497, 498, 499, 500, 501, 497, 498],  // window 2: 5 tokens from floor(2 * 995 / 4)
    [746, 747, 748, 746, 747, 748, 746, 747, 748, 746, 747, 748],  // window 3: 3 tokens again
  ]);
  // the shipped settings: every scored position of a window can be copied from the copy before it
  const { copying, model } = SETTINGS;
  assert.ok(copying.scoreFrom >= copying.longest && copying.scoreFrom < model.seqLen, 'scoreFrom is past the longest window');
  assert.ok(2 * copying.longest <= model.seqLen + 1, 'the longest window fits twice');
});

test('the same corpus and settings give the same script, byte for byte', async () => {
  const again = await run();
  assert.equal(again.script.length, first.script.length);
  assert.ok(again.script === first.script, 'the two runs differ');
});

test('the script loads as a model that reads text and guesses the next token', async () => {
  const lab = await loadAttentionLab();
  const model = lab.loadModel(first.script);
  try {
    assert.equal(model.name, 'sample');
    const r = model.attention('an entity that has');
    assert.equal(r.tokens.join(''), 'an entity that has');
    assert.equal(r.attentions.length, 1);
    assert.equal(r.attentions[0].length, 2);
    const guess = model.predict('a living thing that has');
    assert.equal(guess.next.length, 5);
  } finally {
    model.dispose();
  }
});

test('on a page the script registers the model by name, beside any already there, and never on a page element', () => {
  const vm = require('vm');
  const run = (page) => {
    const ctx = vm.createContext(page);
    vm.runInContext('globalThis = this;', ctx);
    vm.runInContext(first.script, ctx);
    return ctx.AttentionLabModels;
  };
  const models = run({});
  assert.deepEqual(Object.keys(models), ['sample']);
  assert.equal(models.sample.weights.options.vocab, 160);
  // a page whose element has the id AttentionLabModels (named access on window)
  const element = Object.create({ tagName: 'DIV' });
  const replaced = run({ AttentionLabModels: element });
  assert.notEqual(replaced, element);
  assert.deepEqual(Object.keys(replaced), ['sample']);
});
