#!/usr/bin/env node
'use strict';
// Writes lesson 7's pasted-attention example (web/site/lesson-7.html, between its fixture
// markers): GPT-2's real attention on one sentence (the full-precision copy in tests/fixtures/real-attention/,
// from BertViz's saved notebook output; provenance and licence in web/site/data/README.md), in
// <model-attention>'s JSON with weights rounded to 3 decimals, as an author would paste an
// export. tests/node/lesson-fixture.test.js checks that the page holds what this writes.
// Usage: node scripts/lesson-fixture.js [--check]

const fs = require('fs');
const path = require('path');

const PAGE = path.join(__dirname, '..', 'web', 'site', 'lesson-7.html');
const SOURCE = path.join(__dirname, '..', 'tests', 'fixtures', 'real-attention', 'gpt2-quick-brown-fox.json');
const MARKERS = /(<!-- fixture:start -->\n)[\s\S]*?(\n<!-- fixture:end -->)/;

/** The saved file: { model, sentence, source, license, note, shape, tokens, attentions }. */
function source() {
  return JSON.parse(fs.readFileSync(SOURCE, 'utf8'));
}

/** The fixture's JSON text: tokens, attentions [layers][heads][n][n] to 3 decimals, causal. */
function fixtureJson(saved = source()) {
  const round = (x) => Math.round(x * 1000) / 1000;
  const attentions = saved.attentions.map((layer) => layer.map((head) => head.map((row) => row.map(round))));
  return JSON.stringify({ tokens: saved.tokens, causal: true, decimals: 3, attentions });
}

/** The JSON between the page's markers (what the widget on the page reads). */
function pageFixture(html) {
  const m = MARKERS.exec(html);
  if (!m) throw new Error('lesson-fixture: lesson-7.html has no fixture markers');
  return JSON.parse(/<script type="application\/json">([\s\S]*)<\/script>/.exec(m[0])[1]);
}

function pageWith(html, json) {
  if (!MARKERS.test(html)) throw new Error('lesson-fixture: lesson-7.html has no fixture markers');
  return html.replace(MARKERS, (_, open, close) => `${open}<script type="application/json">${json}</script>${close}`);
}

function main() {
  const html = fs.readFileSync(PAGE, 'utf8');
  const next = pageWith(html, fixtureJson());
  if (process.argv.includes('--check')) {
    if (next !== html) {
      console.error('lesson-fixture: lesson-7.html does not hold GPT-2\'s saved attention; run node scripts/lesson-fixture.js');
      process.exit(1);
    }
    console.log('lesson-fixture: up to date');
    return;
  }
  fs.writeFileSync(PAGE, next);
  console.log(`lesson-fixture: wrote ${PAGE}`);
}

module.exports = { fixtureJson, pageWith, pageFixture, source, PAGE, SOURCE };
if (require.main === module) main();
