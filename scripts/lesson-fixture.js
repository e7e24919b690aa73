#!/usr/bin/env node
'use strict';
// Writes lesson 7's pasted-attention example (web/site/lesson-7.html, between its fixture
// markers): the shipped model's attention on one sentence, in <model-attention>'s JSON with
// weights rounded to 3 decimals, as an author would paste a real model's export. Run after
// retraining the model (npm run train:model); tests/node/lesson-fixture.test.js checks that
// the page holds what this writes. Usage: node scripts/lesson-fixture.js [--check]

const fs = require('fs');
const path = require('path');

const PAGE = path.join(__dirname, '..', 'web', 'site', 'lesson-7.html');
const TEXT = 'a dog chased the cat up a tree, and the dog waited.';
const MARKERS = /(<!-- fixture:start -->\n)[\s\S]*?(\n<!-- fixture:end -->)/;

/** The fixture's JSON text: tokens, attentions [layers][heads][n][n] to 3 decimals, causal. */
function fixtureJson(model) {
  const r = model.attention(TEXT);
  const round = (x) => Math.round(x * 1000) / 1000;
  const attentions = r.attentions.map((layer) => layer.map((head) => head.map((row) => row.map(round))));
  return JSON.stringify({ tokens: r.tokens, causal: true, decimals: 3, attentions });
}

function pageWith(html, json) {
  if (!MARKERS.test(html)) throw new Error('lesson-fixture: lesson-7.html has no fixture markers');
  return html.replace(MARKERS, (_, open, close) => `${open}<script type="application/json">${json}</script>${close}`);
}

async function main() {
  const lab = await require('../index.js').loadAttentionLab();
  const model = lab.loadModel();
  const html = fs.readFileSync(PAGE, 'utf8');
  const next = pageWith(html, fixtureJson(model));
  model.dispose();
  if (process.argv.includes('--check')) {
    if (next !== html) {
      console.error('lesson-fixture: lesson-7.html does not hold the shipped model\'s attention; run node scripts/lesson-fixture.js');
      process.exit(1);
    }
    console.log('lesson-fixture: up to date');
    return;
  }
  fs.writeFileSync(PAGE, next);
  console.log(`lesson-fixture: wrote ${PAGE}`);
}

module.exports = { fixtureJson, pageWith, PAGE, TEXT };
if (require.main === module) main();
