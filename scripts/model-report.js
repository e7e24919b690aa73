#!/usr/bin/env node
'use strict';
// Prints what the shipped model (web/model/attention-lab-model.js) does, for the README:
// its size, every head's scores on a sentence and on a repeated phrase (the engine's head
// scores, model.headScores), its top-5 guesses after a few prompts, and what the file records
// of its training. Usage: node scripts/model-report.js (after a build).

const fs = require('fs');
const zlib = require('zlib');
const { SHIPPED_FILE } = require('./train-model.js');

const SENTENCE = 'The cat sat on the mat because it was tired.';
const REPEATED = 'a small dog ran across the garden to find its ball. a small dog ran across the garden to find its ball.';
const PROMPTS = ['the act of', 'a person who', 'a small dog ran across the garden. a small dog ran across the', 'he swore vengeance on the', 'The cat sat on the'];

const f = (x, digits = 2) => (x === null || x === undefined ? '-' : x.toFixed(digits));

require('../index.js').loadAttentionLab().then((lab) => {
  const bytes = fs.readFileSync(SHIPPED_FILE);
  const model = lab.loadModel();
  const { options, about } = model;
  const params = require(SHIPPED_FILE).weights.parameters.reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
  console.log(`model ${model.name}: ${options.layers} layers x ${options.heads} heads, dModel ${options.dModel}, MLP ${options.mlp} (${options.activation}), layer norm ${options.layerNorm}, context ${options.seqLen}, vocab ${options.vocab}`);
  console.log(`parameters: ${params}; file ${bytes.length} B raw, ${zlib.gzipSync(bytes, { level: 9 }).length} B gzip -9`);
  console.log(`corpus: ${about.corpus.characters} characters, ${about.corpus.tokens} tokens`);
  console.log(`evaluation (the trainer's fixed windows): loss ${f(about.evaluation.loss, 3)} nats, accuracy ${f(about.evaluation.accuracy, 3)}`);
  for (const [stage, losses] of Object.entries(about.meanLossPer100Steps)) {
    console.log(`${stage}: mean loss of the first 100 steps ${losses[0]}, of the last 100 ${losses[losses.length - 1]}`);
  }
  console.log('');
  const plain = model.headScores(SENTENCE);
  const repeated = model.headScores(REPEATED);
  const probe = about.headScores;
  console.log(`| head | previous-token (sentence) | first-token (sentence) | entropy (sentence, nats) | prefix matching (repeated phrase) | induction (trainer's probe) |`);
  console.log('|---|---|---|---|---|---|');
  plain.forEach((h, i) => {
    console.log(`| ${h.layer}.${h.head} | ${f(h.previousToken)} | ${f(h.firstToken)} | ${f(h.entropy)} | ${f(repeated[i].prefixMatching)} | ${f(probe[i].induction)} |`);
  });
  console.log('');
  console.log(`sentence: ${JSON.stringify(model.attention(SENTENCE).tokens)}`);
  console.log(`repeated phrase: ${JSON.stringify(model.attention(REPEATED).tokens)}`);
  console.log('');
  console.log('| text | top 5 next tokens (probability) |');
  console.log('|---|---|');
  for (const p of PROMPTS) {
    const next = model.predict(p).next.map((g) => `\`${JSON.stringify(g.token).slice(1, -1)}\` ${f(g.probability)}`).join(', ');
    console.log(`| ${p} | ${next} |`);
  }
  model.dispose();
});
