'use strict';
// Lesson 7's pasted example is GPT-2's real attention (tests/fixtures/real-attention/gpt2-quick-brown-fox.json,
// from BertViz's saved notebook output), rounded to 3 decimals by scripts/lesson-fixture.js: the
// page must hold exactly what the script writes from the saved file, within half a unit of the
// third decimal of every saved weight, and the engine's check of pasted weights must accept it.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const crypto = require('crypto');
const { loadAttentionLab } = require('./lab.js');
const { fixtureJson, pageWith, pageFixture, source, PAGE, SOURCE } = require('../../scripts/lesson-fixture.js');

test("lesson 7's pasted attention is GPT-2's saved attention, to 3 decimals, and the engine accepts it", async () => {
  const lab = await loadAttentionLab();
  const html = fs.readFileSync(PAGE, 'utf8');
  assert.equal(pageWith(html, fixtureJson()), html, 'run node scripts/lesson-fixture.js');
  const saved = source();
  // The saved file is the shared fixture, unchanged (byte for byte the project's shared copy).
  assert.equal(crypto.createHash('sha256').update(fs.readFileSync(SOURCE)).digest('hex'), 'd3885d964539d4953b1ce35731ded974619d7e0ab991d0266f9f59268e3319eb');
  assert.equal(saved.model, 'gpt2');
  assert.deepEqual(saved.shape, [12, 12, 10, 10]);
  const data = pageFixture(html);
  assert.deepEqual(data.tokens, saved.tokens);
  assert.equal(data.tokens.join(''), saved.sentence, 'the tokens join back into the sentence');
  let worst = 0;
  saved.attentions.forEach((layer, l) => layer.forEach((head, h) => head.forEach((row, i) => row.forEach((w, j) => {
    worst = Math.max(worst, Math.abs(data.attentions[l][h][i][j] - w));
  }))));
  assert.ok(worst <= 0.0005 + 1e-12, `every weight within half a unit of the third decimal (worst ${worst})`);
  // The engine's check of pasted weights, with the rounding declared, accepts every head.
  const rows = lab.headSummary(data.attentions, { tokens: data.tokens, causal: true, decimals: 3 });
  assert.equal(rows.length, 12 * 12);
});
