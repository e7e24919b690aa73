'use strict';
// Lesson 7's pasted example is the shipped model's attention on its sentence, rounded to 3
// decimals (scripts/lesson-fixture.js writes it): a retrained model cannot leave the page
// showing the old one's patterns.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const { loadAttentionLab } = require('./lab.js');
const { fixtureJson, pageWith, PAGE } = require('../../scripts/lesson-fixture.js');

test("lesson 7's pasted attention is the shipped model's, to 3 decimals, and the widget's reader accepts it", async () => {
  const lab = await loadAttentionLab();
  const model = lab.loadModel();
  try {
    const html = fs.readFileSync(PAGE, 'utf8');
    assert.equal(pageWith(html, fixtureJson(model)), html, 'run node scripts/lesson-fixture.js after retraining the model');
    const data = JSON.parse(fixtureJson(model));
    assert.equal(data.tokens.join(''), model.attention(require('../../scripts/lesson-fixture.js').TEXT).tokens.join(''));
    // The engine's check of pasted weights, with the rounding declared, accepts every head.
    const rows = lab.headSummary(data.attentions, { tokens: data.tokens, causal: true, decimals: 3 });
    assert.equal(rows.length, model.options.layers * model.options.heads);
  } finally {
    model.dispose();
  }
});
