'use strict';
// The DOM-free UI modules, imported straight from web/src without a browser.
const test = require('node:test');
const assert = require('node:assert/strict');
const colors = require('../../web/src/ui/colors.js');
const format = require('../../web/src/ui/format.js');
const urlState = require('../../web/src/ui/url-state.js');
const { parseAttribute, formatAttribute } = require('../../web/src/ui/attributes.js');
const { WIDGETS, attributesOf } = require('../../web/src/kit/manifest.js');
const { readAuthorData, AuthorDataError } = require('../../web/src/ui/author-data.js');
const heatmap = require('../../web/src/ui/heatmap-model.js');
const predict = require('../../web/src/ui/predict.js');
const chart = require('../../web/src/ui/chart.js');
const { STEPS } = require('../../web/src/ui/steps.js');
const { FORMULAS } = require('../../web/src/ui/formula-tex.js');
const { ownKey } = require('../../web/src/ui/own-keys.js');

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

test('URL state lives in the query string per widget id and keeps every other parameter byte for byte', () => {
  const q1 = urlState.write('?page=2&utm_source=x%2By&other.x=1', 'lab', { token: 4, step: 2, causal: true });
  assert.equal(q1, '?page=2&utm_source=x%2By&other.x=1&lab.token=4&lab.step=2&lab.causal=1');
  assert.deepEqual(urlState.read(q1, '', 'lab'), { token: '4', step: '2', causal: '1' });
  assert.deepEqual(urlState.read(q1, '#intro', 'other'), { x: '1' });
  assert.equal(urlState.write('?lab.token=1', 'lab', {}), '', 'nothing left: no query string');
  assert.equal(urlState.write('?lab.token=1&keep', 'lab', { step: 3 }), '?keep&lab.step=3');
  assert.equal(urlState.write('', 'my id', { q: '0,3' }), '?my+id.q=0%2C3');
  assert.deepEqual(urlState.read('?my+id.q=0%2C3', '', 'my id'), { q: '0,3' });
  assert.deepEqual(urlState.read('', '#lab.token=4&lab.step=3', 'lab'), { token: '4', step: '3' }, 'older links in the fragment still open');
  assert.deepEqual(urlState.read('?lab.step=1', '#lab.step=3', 'lab'), { step: '1' }, 'the query string wins');
  assert.deepEqual(urlState.read('?lab=1&labx.step=2&lab.=3', '', 'lab'), {}, 'only keys under "lab." count');
});

test('hostile or malformed URLs are ignored, never an error', () => {
  for (const bad of ['#100%', '#%E0%A4%A', '?lab.step=%', '#lab.token=%zz', '?' + '&'.repeat(5000), '#' + 'x'.repeat(200000), '?%%%&lab.step=2']) {
    assert.doesNotThrow(() => urlState.read(bad, bad, 'lab'), bad.slice(0, 20));
    assert.doesNotThrow(() => urlState.write(bad, 'lab', { step: 1 }), bad.slice(0, 20));
  }
  assert.deepEqual(urlState.read('?%%%&lab.step=2', '#100%', 'lab'), { step: '2' }, 'the good part of a damaged query still reads');
  assert.equal(urlState.write('?%%%&x=1', 'lab', { step: 1 }), '?%%%&x=1&lab.step=1', "unreadable parameters are kept as they were: they are the page's");
  assert.equal(urlState.int('9', 0, 0, 4), 0, 'out of range falls back');
  assert.equal(urlState.int('1e3', 0, 0, 5000), 0, 'only plain whole numbers');
  assert.equal(urlState.int('2', 0, 0, 4), 2);
  assert.equal(urlState.bool('0', true), false);
  assert.equal(urlState.bool('yes', true), true, 'unknown falls back');
  assert.equal(urlState.choice('dk', ['sqrt', 'dk'], 'sqrt'), 'dk');
  assert.equal(urlState.choice('constructor', ['sqrt', 'dk'], 'sqrt'), 'sqrt');
});

test('attributes are read by their declared type, and a wrong value names the widget, attribute and what was expected', () => {
  const spec = (tag, name) => attributesOf(tag).find((a) => a.name === name);
  const causal = spec('attention-heatmap', 'causal');
  assert.equal(parseAttribute('attention-heatmap', causal, ''), true, 'a bare boolean attribute is true');
  assert.equal(parseAttribute('attention-heatmap', causal, 'false'), false);
  assert.equal(parseAttribute('attention-heatmap', causal, null), undefined);
  assert.throws(() => parseAttribute('attention-heatmap', causal, 'yes please'),
    { message: '<attention-heatmap>: causal="yes please" is not valid; expected true or false (or the bare attribute)' });
  const seed = spec('scaling-experiment', 'seed');
  assert.equal(parseAttribute('scaling-experiment', seed, ' 42 '), 42);
  for (const bad of ['4.5', '-1', 'NaN', '1e10', 'Infinity', '0x10', '']) {
    assert.throws(() => parseAttribute('scaling-experiment', seed, bad), /^Error: <scaling-experiment>: seed=".*" is not valid; expected a whole number from 0 to 1000000000$/);
  }
  assert.throws(() => parseAttribute('multihead-view', spec('multihead-view', 'heads'), '3'), { message: '<multihead-view>: heads="3" is not valid; expected one of 1, 2, 4, 8' });
  assert.throws(() => parseAttribute('attention-heatmap', spec('attention-heatmap', 'tokens'), 'a '.repeat(6000)), /tokens is 12000 characters long; expected at most 10000/);
  assert.deepEqual(parseAttribute('attention-heatmap', spec('attention-heatmap', 'tokens'), '  the  cat\nsat '), ['the', 'cat', 'sat']);
  assert.equal(formatAttribute(causal, false), 'false');
  assert.equal(formatAttribute(causal, true), '');
  assert.equal(formatAttribute(spec('attention-heatmap', 'tokens'), ['a', 'b']), 'a b');
  assert.equal(formatAttribute(seed, null), null);
});

test('the manifest declares each widget once, with typed attributes, parts, and property names that do not collide', () => {
  const types = ['tokens', 'boolean', 'integer', 'number', 'enum', 'string'];
  for (const [tag, w] of Object.entries(WIDGETS)) {
    const names = attributesOf(tag).map((a) => a.name);
    assert.equal(new Set(names).size, names.length, `${tag}: attribute names are unique`);
    for (const a of attributesOf(tag)) {
      assert.ok(types.includes(a.type), `${tag} ${a.name}: known type`);
      assert.ok(a.description && a.property, `${tag} ${a.name}: documented, with a property`);
      if (a.type === 'enum') assert.ok(Array.isArray(a.values) && a.values.length > 1);
      assert.ok(!['data', 'state', 'status'].includes(a.property), `${tag} ${a.name}: property does not shadow the base class`);
    }
    assert.match(w.className, /^[A-Z][A-Za-z]+$/);
  }
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
    [{ tokens: null }, '[1, 2]', '<attention-heatmap>: the data must be an object'],
    [{ tokens: null }, { Q: null, K: [[1]], V: [[1]] }, '<attention-heatmap>: Q is null; expected nested arrays of numbers'],
    [{ tokens: null }, '{"K": [[1]], "V": [[1]]}', '<attention-heatmap>: Q, K and V go together; Q is missing'],
    [{ tokens: null }, { options: { causal: 'yes' } }, '<attention-heatmap>: options.causal is "yes"; expected true or false'],
    [{ tokens: null }, { options: { temperature: 'hot' } }, '<attention-heatmap>: options.temperature is "hot"; expected a number above 0'],
    [{ tokens: null }, { options: { temperature: -1 } }, '<attention-heatmap>: options.temperature is -1; expected a number above 0'],
    [{ tokens: null }, { options: { scaling: 'log' } }, '<attention-heatmap>: options.scaling is "log"; expected "sqrt", "none" or "dk"'],
    [{ tokens: null }, { options: { colour: 1 } }, '<attention-heatmap>: unknown option "colour"; expected one of causal, scaling, temperature, scale'],
    [{ tokens: null }, { options: [true] }, '<attention-heatmap>: options must be an object'],
    [{ tokens: 'a '.repeat(257) }, null, '<attention-heatmap>: 257 tokens is too many to draw; give at most 256'],
    [{ tokens: 'x'.repeat(41) }, null, '<attention-heatmap>: token 1 is 41 characters long; expected at most 40'],
    [{ tokens: 'x'.repeat(1e6) }, null, '<attention-heatmap>: the tokens attribute is 1000000 characters long; expected at most 20000'],
    [{ tokens: null }, ' '.repeat(2e6 + 1), '<attention-heatmap>: the JSON data is 2000001 characters long; expected at most 2000000'],
  ];
  for (const [attrs, json, message] of bad) {
    assert.throws(() => readAuthorData('attention-heatmap', attrs, json, ['options']), (err) => {
      assert.ok(err instanceof AuthorDataError);
      assert.ok(err.message.startsWith(message), `${err.message}\n  should start with\n${message}`);
      return true;
    });
  }
  assert.deepEqual(readAuthorData('x', { tokens: null }, '{"Q": [[1], [2]], "K": [[1]], "V": [[1]]}').tokens, ['t1', 't2']);
  assert.deepEqual(readAuthorData('x', { tokens: 'a b' }, { options: { causal: true, temperature: 2 } }, ['options']).options, { causal: true, temperature: 2 }, 'the data property takes an object');
  const deep = `${'['.repeat(100000)}${']'.repeat(100000)}`;
  const t0 = Date.now();
  assert.throws(() => readAuthorData('x', { tokens: null }, `{"Q": ${deep}, "K": [[1]], "V": [[1]]}`), AuthorDataError);
  assert.ok(Date.now() - t0 < 1000, '100,000-deep JSON is refused quickly');
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

test('the heatmap readout names query and key and gives the value, says masked or hidden, and follows the axis words', () => {
  const cells = heatmap.cells([[1, 0], [0.25, 0.75]], heatmap.maskedFrom([[0, -Infinity], [0, 0]]), ['time', 'flies'], ['time', 'flies']);
  assert.equal(heatmap.readout(cells[1][0]), 'query \u201cflies\u201d \u2192 key \u201ctime\u201d: 0.25');
  assert.equal(heatmap.readout(cells[0][1]), 'query \u201ctime\u201d \u2192 key \u201cflies\u201d: masked, weight 0');
  const hidden = heatmap.cells([[1, 0]], null, ['a'], ['a', 'b'], { hiddenRows: [0] });
  assert.equal(heatmap.readout(hidden[0][0]), 'query \u201ca\u201d \u2192 key \u201ca\u201d: hidden until you answer the question');
  assert.equal(hidden[0][0].value, null);
  assert.equal(heatmap.readout(cells[1][1], { rowWord: 'sentence', colWord: 'word', digits: 3 }), 'sentence \u201cflies\u201d \u2192 word \u201cflies\u201d: 0.750');
});

test('a bare token label shows its edge spaces as \u2423 and a line break as \u21b5, and a cell\'s name says them in words', () => {
  const { tokenLabel, spokenLabel } = require('../../web/src/ui/model-text.js');
  const cases = [[' part', '\u2423part', 'space part'], ['part', 'part', 'part'], [' ', '\u2423', 'space'], ['a  ', 'a\u2423\u2423', 'a space space'],
    ['\n', '\u21b5', 'new line'], [' \u0120a b', '\u2423\u0120a b', 'space \u0120a b'], ['\u0120John', '\u0120John', '\u0120John']];
  for (const [token, shown, said] of cases) {
    assert.equal(tokenLabel(token, true), shown, JSON.stringify(token));
    assert.equal(spokenLabel(shown), said, JSON.stringify(token));
  }
  // In quotes (a guess, a readout) the space is seen already: only the line break is marked.
  assert.equal(tokenLabel(' part'), ' part');
  const cells = heatmap.cells([[0.5, 0.5]], null, ['\u2423a'], ['a', '\u2423a']);
  assert.equal(cells[0][1].label, '0.50: query space a, key space a, weight 0.5');
  assert.equal(heatmap.readout(cells[0][0]), 'query \u201c\u2423a\u201d \u2192 key \u201ca\u201d: 0.50');
});

test('the renormalisation readout lists the weights a masked row keeps, their sum and the share they had without the mask', () => {
  assert.deepEqual(heatmap.prefixOnes(3), [[1, 1, 1], [0, 1, 1], [0, 0, 1]]);
  const keys = ['time', 'flies', 'like'];
  const text = heatmap.renormalisation({ label: 'flies', keys, weights: [0.2, 0.8, 0], masked: [false, false, true], sum: 1, share: 0.625 });
  assert.equal(text, 'Row \u201cflies\u201d sees 2 of 3 keys (\u201ctime\u201d, \u201cflies\u201d): 0.20 + 0.80 = 1.00. '
    + 'Without the mask this row was spread over all 3 keys and these 2 got 0.625 of it; the softmax now divides each of them by 0.625, so the row sums to 1 again.');
  assert.match(heatmap.renormalisation({ label: 'time', keys, weights: [1, 0, 0], masked: [false, true, true], sum: 1, share: 0.1 }), /this one got 0\.1 of it; the softmax now divides it by 0\.1/);
  assert.equal(heatmap.renormalisation({ label: 'like', keys, weights: [0.1, 0.2, 0.7], masked: [false, false, false], sum: 1, share: 1 }),
    'Row \u201clike\u201d sees all 3 keys: nothing is masked, its weights are the same as without the mask, and they sum to 1.00.');
  const many = Array.from({ length: 8 }, (_, j) => `t${j}`);
  assert.match(heatmap.renormalisation({ label: 't7', keys: [...many, 'x'], weights: Array(9).fill(0.125), masked: [...Array(8).fill(false), true], sum: 1, share: 0.9 }),
    /sees 8 of 9 keys: its 8 weights add up to 1\.00\./);
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

test('chart tick labels thin out as chart text grows: every d_k at the smallest size, every other one from 14 units, never closer than an em', () => {
  const g = chart.lineLayout({ xs: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], yMax: 25, series: [] });
  const shownAt = (ticks, level) => ticks.filter((t) => t.hideFrom > level);
  // At 14 units "512", ending at the right edge, would come within 4 units of "256".
  assert.deepEqual(chart.TEXT_SIZES.map((_, level) => shownAt(g.xTicks, level).map((t) => t.value)), [
    [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], [1, 4, 16, 64, 256], [1, 4, 16, 64, 256], [1, 4, 16, 64, 256]]);
  assert.deepEqual([g.xTicks[0].anchor, g.xTicks[9].anchor], ['start', 'end'], 'the labels at the ends start and end there');
  assert.ok(g.yTicks.every((t) => t.hideFrom === chart.TEXT_SIZES.length), 'six y labels fit at every size');
  // Seven sizes to n = 16384 on a log-y axis of eight decades (the cost lab's charts).
  const cost = chart.lineLayout({ xs: [256, 512, 1024, 2048, 4096, 8192, 16384], yLog: true, yMin: 0.001, yMax: 5000, series: [] });
  for (const [level, { size }] of chart.TEXT_SIZES.entries()) {
    // The layout's bound (a digit at most 0.6 em wide); tests/browser/teaching.test.js measures real glyphs.
    const xs = shownAt(cost.xTicks, level);
    // Each label's extent as drawn: centred on its tick, or starting or ending there.
    const span = (t) => { const w = 0.6 * size * t.label.length, a = t.anchor === 'start' ? t.at : t.anchor === 'end' ? t.at - w : t.at - w / 2; return [a, a + w]; };
    for (let i = 1; i < xs.length; i++) assert.ok(span(xs[i])[0] - span(xs[i - 1])[1] >= size, `x labels ${xs[i - 1].label}, ${xs[i].label} at ${size}`);
    const ys = shownAt(cost.yTicks, level);
    for (let i = 1; i < ys.length; i++) assert.ok(ys[i - 1].at - ys[i].at >= 1.75 * size, `y labels ${ys[i - 1].label}, ${ys[i].label} at ${size}`);
    assert.ok(xs.length >= 4 && ys.length >= 4, `at ${size} units at least four labels per axis remain`);
  }
  assert.deepEqual(shownAt(cost.xTicks, 3).map((t) => t.value), [256, 1024, 4096, 16384]);
});

test('the stepper has the four operations in order, each with a formula', () => {
  assert.deepEqual(STEPS.map((s) => s.id), ['project', 'score', 'softmax', 'sum']);
  for (const s of STEPS) assert.ok(FORMULAS[s.formula], `formula for ${s.id}`);
});

test('an export menu opens below its button, right edges aligned, and flips above or shifts left to stay in the viewport', () => {
  const { menuPosition } = require('../../web/src/ui/menu-position.js');
  const view = { width: 800, height: 600 };
  const menu = { width: 170, height: 180 };
  // Room below: under the button, 4 px apart, right edges aligned.
  assert.deepEqual(menuPosition({ left: 500, top: 100, right: 580, bottom: 130 }, menu, view), { left: 410, top: 134 });
  // Near the bottom of the viewport with room above: above the button.
  assert.deepEqual(menuPosition({ left: 500, top: 500, right: 580, bottom: 530 }, menu, view), { left: 410, top: 316 });
  // A button at the left edge: the menu shifts right to stay 4 px inside.
  assert.deepEqual(menuPosition({ left: 0, top: 100, right: 60, bottom: 130 }, menu, view), { left: 4, top: 134 });
  // A viewport too short either way: below the button, pulled up to fit as far as it can.
  assert.deepEqual(menuPosition({ left: 500, top: 20, right: 580, bottom: 50 }, menu, { width: 800, height: 150 }), { left: 410, top: 4 });
  assert.throws(() => menuPosition(null, menu, view), /menuPosition: button must be an object/);
});

test('a cross-attention heatmap reserves within 16 px of its drawn height, rows from the queries and cell size from the keys', () => {
  const { estimateHeight, WIDTHS } = require('../../web/src/ui/reserve.js');
  // Heights drawn in Chromium 156 (queries x keys: 4 x 6, 8 x 3, 2 x 10) at each width.
  const drawn = {
    320: [460, 708, 384], 360: [482, 708, 384], 480: [478, 678, 355], 560: [441, 641, 334],
    640: [411, 611, 311], 800: [411, 611, 311], 1000: [411, 611, 311],
  };
  for (const width of WIDTHS) {
    [[4, 6], [8, 3], [2, 10]].forEach(([tokens, keys], i) => {
      const est = estimateHeight('attention-heatmap', width, { tokens, keys });
      assert.ok(Math.abs(est - drawn[width][i]) <= 16, `${tokens} x ${keys} at ${width} px: reserved ${est}, drawn ${drawn[width][i]}`);
    });
  }
  // Without keys, the same call is the self-attention heatmap's (with its sentence input).
  assert.ok(estimateHeight('attention-heatmap', 640, { tokens: 6 }) > estimateHeight('attention-heatmap', 640, { tokens: 6, keys: 6 }) + 80);
});

test("a widget keeps the keys its focused control uses and lets the page's shortcuts have the rest", () => {
  const key = (k, mods = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, isComposing: false, ...mods });
  const text = { tag: 'input', type: 'text' };
  const kept = (control, keys) => keys.filter((k) => ownKey(control, typeof k === 'string' ? key(k) : key(k.key, k)));
  const page = ['Tab', 'Escape', 'F1', { key: 'k', ctrlKey: true }, { key: 'k', metaKey: true }];
  // Typing, including '/', 's', space and characters outside the BMP, and the caret keys.
  assert.deepEqual(kept(text, ['/', 's', ' ', '?', '\u{1F600}', 'Backspace', 'ArrowLeft', 'Home', 'Enter', ...page]),
    ['/', 's', ' ', '?', '\u{1F600}', 'Backspace', 'ArrowLeft', 'Home', 'Enter']);
  assert.equal(ownKey(text, key('@', { ctrlKey: true, altKey: true })), true, 'AltGr characters are typing');
  assert.equal(ownKey(text, key('ArrowLeft', { ctrlKey: true })), true, 'a word to the left is caret movement');
  assert.equal(ownKey(text, key('Process', { isComposing: true })), true, 'an input method composing');
  assert.deepEqual(kept(text, ['ArrowUp', 'PageDown']), [], 'a one-line field leaves the vertical keys to the page');
  assert.deepEqual(kept({ tag: 'input', type: 'number' }, ['ArrowUp', '7', ...page]), ['ArrowUp', '7']);
  assert.deepEqual(kept({ tag: 'input' }, ['x']), ['x'], 'an input without a type is a text field');
  assert.deepEqual(kept({ tag: 'textarea' }, ['ArrowDown', 'PageUp', 'Enter', ...page]), ['ArrowDown', 'PageUp', 'Enter']);
  assert.deepEqual(kept({ tag: 'div', editable: true }, ['ArrowDown', 'q']), ['ArrowDown', 'q']);
  assert.deepEqual(kept({ tag: 'input', type: 'range' }, ['ArrowRight', 'ArrowDown', 'End', 'PageUp', ' ', 'x', { key: 'ArrowRight', altKey: true }, ...page]), ['ArrowRight', 'ArrowDown', 'End', 'PageUp']);
  assert.deepEqual(kept({ tag: 'input', type: 'checkbox' }, [' ', 'Enter', 'ArrowRight', ...page]), [' ']);
  assert.deepEqual(kept({ tag: 'input', type: 'radio' }, [' ', 'ArrowDown', 'Enter']), [' ', 'ArrowDown']);
  assert.deepEqual(kept({ tag: 'select' }, ['ArrowDown', ' ', 'Enter', 'b', ...page]), ['ArrowDown', ' ', 'Enter', 'b']);
  for (const control of [{ tag: 'button' }, { tag: 'summary' }, { tag: 'input', type: 'submit' }, { tag: 'span', role: 'menuitem' }]) {
    assert.deepEqual(kept(control, [' ', 'Enter', 'ArrowRight', 's', ...page]), [' ', 'Enter'], JSON.stringify(control));
  }
  assert.deepEqual(kept({ tag: 'a' }, ['Enter', ' ']), ['Enter']);
  assert.deepEqual(kept({ tag: 'div', role: 'slider' }, ['ArrowLeft', 'Home']), ['ArrowLeft', 'Home']);
  // Text, figures and cells: the widget's own handlers decide (preventDefault), not this rule.
  for (const control of [{ tag: 'p' }, { tag: 'td', role: 'gridcell' }, { tag: 'span' }]) {
    assert.deepEqual(kept(control, ['ArrowRight', ' ', 'Enter', 's']), [], JSON.stringify(control));
  }
});
