'use strict';
// The DOM-free UI modules, imported straight from web/src without a browser.
const test = require('node:test');
const assert = require('node:assert/strict');
const colors = require('../../web/src/ui/colors.js');
const format = require('../../web/src/ui/format.js');
const hashState = require('../../web/src/ui/hash-state.js');
const { readAuthorData, AuthorDataError } = require('../../web/src/ui/author-data.js');
const heatmap = require('../../web/src/ui/heatmap-model.js');
const predict = require('../../web/src/ui/predict.js');
const chart = require('../../web/src/ui/chart.js');
const { STEPS } = require('../../web/src/ui/steps.js');
const { FORMULAS } = require('../../web/src/ui/formula-tex.js');

test('the colour scale gets steadily lighter from 0 to 1 and its text colour keeps WCAG AA contrast', () => {
  let previous = -1;
  for (let i = 0; i <= 100; i++) {
    const t = i / 100;
    const lum = colors.luminance(colors.rgb(t));
    assert.ok(lum > previous, `luminance rises at t = ${t}`);
    previous = lum;
    const fg = colors.textColor(t) === '#000000' ? [0, 0, 0] : [255, 255, 255];
    assert.ok(colors.contrast(colors.rgb(t), fg) >= 4.5, `contrast at t = ${t}`);
  }
  assert.equal(colors.color(0), 'rgb(68, 1, 84)');
  assert.equal(colors.color(1), 'rgb(253, 231, 37)');
  assert.equal(colors.color(NaN), colors.color(0));
});

test('numbers are formatted with real minus signs and symbols for the infinities', () => {
  assert.equal(format.num(0.66976), '0.6698');
  assert.equal(format.num(-2.5, 2), '\u22122.5');
  assert.equal(format.num(-Infinity), '\u2212\u221e');
  assert.equal(format.num(3), '3');
  assert.equal(format.fixed(0.001, 2), '0.00');
  assert.equal(format.fixed(-0.001, 2), '0.00');
  assert.equal(format.grouped(1048576), '1,048,576');
  assert.equal(format.shape([32, 50, 50]), '[32, 50, 50]');
});

test('URL hash state round-trips per widget and leaves other widgets alone', () => {
  const h1 = hashState.write('#other.x=1', 'lab', { token: 4, step: 2, causal: true });
  assert.equal(h1, '#other.x=1&lab.token=4&lab.step=2&lab.causal=1');
  assert.deepEqual(hashState.read(h1, 'lab'), { token: '4', step: '2', causal: '1' });
  assert.deepEqual(hashState.read(h1, 'other'), { x: '1' });
  assert.equal(hashState.int('9', 0, 0, 4), 0, 'out of range falls back');
  assert.equal(hashState.bool('0', true), false);
  assert.equal(hashState.choice('dk', ['sqrt', 'dk'], 'sqrt'), 'dk');
  assert.equal(hashState.write('#lab.token=1', 'lab', {}), '');
});

test('author data: tokens from the attribute, and readable messages for each mistake', () => {
  const ok = readAuthorData('attention-heatmap', { tokens: ' the  cat sat ' }, null);
  assert.deepEqual(ok.tokens, ['the', 'cat', 'sat']);
  const bad = [
    [{ tokens: null }, '{"Q": [[1]], "K": [[1]]', '<attention-heatmap>: the JSON inside <script type="application/json"> could not be read'],
    [{ tokens: 'a b' }, '{"Q": [[1], [2], [3]], "K": [[1]], "V": [[1]]}', '<attention-heatmap>: tokens has 2 words but Q has 3 rows; expected one row per token'],
    [{ tokens: null }, '{"Q": [[1]], "K": [[1]]}', '<attention-heatmap>: Q, K and V go together; V is missing'],
    [{ tokens: null }, '{"X": [[1]]}', '<attention-heatmap>: embeddings X need Wq, Wk and Wv; missing Wq, Wk, Wv'],
    [{ tokens: null }, '{"colour": "red"}', '<attention-heatmap>: unknown JSON key "colour"; expected one of tokens, Q, K, V, X, Wq, Wk, Wv, options'],
    [{ tokens: 'a' }, '{"tokens": ["b"]}', '<attention-heatmap>: tokens are given twice, as an attribute and in the JSON; keep one'],
    [{ tokens: null }, '[1, 2]', '<attention-heatmap>: the JSON data must be an object'],
  ];
  for (const [attrs, json, message] of bad) {
    assert.throws(() => readAuthorData('attention-heatmap', attrs, json, ['options']), (err) => {
      assert.ok(err instanceof AuthorDataError);
      assert.ok(err.message.startsWith(message), `${err.message}\n  should start with\n${message}`);
      return true;
    });
  }
  assert.deepEqual(readAuthorData('x', { tokens: null }, '{"Q": [[1], [2]], "K": [[1]], "V": [[1]]}').tokens, ['t1', 't2']);
});

test('heatmap cells: masked cells say so, labels name query and key, arrows stay inside the grid', () => {
  const cells = heatmap.cells([[1, 0], [0.25, 0.75]], heatmap.maskedFrom([[0, -Infinity], [0, 0]]), ['a', 'b'], ['a', 'b']);
  assert.equal(cells[0][1].masked, true);
  assert.equal(cells[0][1].label, 'masked: query a, key b, weight 0');
  assert.equal(cells[1][1].label, '0.75: query b, key b, weight 0.75');
  assert.equal(cells[1][1].text, '0.75');
  assert.equal(cells[0][1].background, null);
  assert.deepEqual(heatmap.move('ArrowLeft', 0, 0, 2, 2), [0, 0]);
  assert.deepEqual(heatmap.move('ArrowDown', 1, 0, 2, 2), [1, 0]);
  assert.deepEqual(heatmap.move('End', 1, 0, 2, 5), [1, 4]);
  assert.equal(heatmap.move('a', 0, 0, 2, 2), null);
});

test('predictions are judged against the value given, with tolerance, and typos are caught', () => {
  assert.equal(predict.judgeNumber('0.67', 0.6698, 0.01).close, true);
  assert.equal(predict.judgeNumber('0.5', 0.6698, 0.01).close, false);
  assert.equal(predict.judgeNumber('abc', 1, 1).ok, false);
  assert.equal(predict.judgeShape('32, 50, 50', [32, 50, 50]).close, true);
  assert.equal(predict.judgeShape('[32 x 50 x 64]', [32, 50, 50]).close, false);
  assert.equal(predict.judgeShape('32, fifty', [32, 50]).ok, false);
});

test('chart layout maps domains to pixels and picks round ticks', () => {
  const x = chart.log2([1, 512], [0, 90]);
  assert.equal(x(1), 0);
  assert.equal(x(512), 90);
  assert.equal(x(8), 30);
  assert.deepEqual(chart.ticks(0, 25, 5), [0, 5, 10, 15, 20, 25]);
  assert.deepEqual(chart.ticks(0, 1, 5), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.equal(chart.path([[0, 0], [1.25, 2]]), 'M0.0 0.0 L1.3 2.0');
});

test('the stepper has the four operations in order, each with a formula', () => {
  assert.deepEqual(STEPS.map((s) => s.id), ['project', 'score', 'softmax', 'sum']);
  for (const s of STEPS) assert.ok(FORMULAS[s.formula], `formula for ${s.id}`);
});
