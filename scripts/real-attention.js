#!/usr/bin/env node
'use strict';
// Writes the real pretrained attention the site shows (web/site/data/*.json) from the files
// saved with full precision in tests/fixtures/real-attention/ (GPT-2 on one sentence, BERT-base
// on a sentence pair, read out of BertViz's example notebooks: see the README there): the same
// tokens and provenance, the weights rounded to 3 decimals (what <model-attention> reads with
// "decimals": 3), GPT-2 marked causal and BERT's second sentence marked by sentenceBStart.
// Run: node scripts/real-attention.js   (--check: exit 1 when a written file is out of date)

const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const FROM = path.join(root, 'tests', 'fixtures', 'real-attention');
const TO = path.join(root, 'web', 'site', 'data');
const DECIMALS = 3;

/** What each shipped file adds to its source: the keys <model-attention> reads. */
const FILES = {
  'gpt2-quick-brown-fox.json': { causal: true },
  'bert-cat-mat.json': {},  // bidirectional; its own sentenceBStart (8) is kept
};

/** The shipped form of one source file (an object, keys in a fixed order). */
function compact(source, extra) {
  const round = (x) => Number(x.toFixed(DECIMALS));
  const out = {
    model: source.model,
    sentence: source.sentence,
    source: source.source,
    license: `${source.license}; the model's weights: ${source.model.startsWith('gpt2') ? 'MIT (the Hugging Face gpt2 model card)' : 'Apache-2.0 (google-research/bert)'}`,
    note: `${source.note} Here rounded to ${DECIMALS} decimals by scripts/real-attention.js from tests/fixtures/real-attention/.`,
    tokens: source.tokens,
    ...extra,
    ...(source.sentenceBStart !== undefined ? { sentenceBStart: source.sentenceBStart } : {}),
    decimals: DECIMALS,
    attentions: source.attentions.map((layer) => layer.map((head) => head.map((row) => row.map(round)))),
  };
  return out;
}

/** The text of each shipped file, by name. */
function build() {
  const out = {};
  for (const [name, extra] of Object.entries(FILES)) {
    const source = JSON.parse(fs.readFileSync(path.join(FROM, name), 'utf8'));
    out[name] = `${JSON.stringify(compact(source, extra))}\n`;
  }
  return out;
}

module.exports = { build, compact, FILES, TO, FROM, DECIMALS };

if (require.main === module) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [name, text] of Object.entries(build())) {
    const file = path.join(TO, name);
    if (check) {
      if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) {
        console.error(`real-attention: ${path.relative(root, file)} is out of date; run node scripts/real-attention.js`);
        stale += 1;
      }
    } else {
      fs.writeFileSync(file, text);
      console.log(`real-attention: ${path.relative(root, file)} (${text.length} characters)`);
    }
  }
  if (stale) process.exit(1);
}
