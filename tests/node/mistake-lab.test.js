'use strict';
// The DOM-free logic of <mistakes-lab>: on each mistake's inputs, exactly one "which weights
// change?" choice matches the cells the engine reports, and the judge and colour scale agree.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const lesson = require('../../web/src/ui/mistake-lab.js');
const { divergingScale } = require('../../web/src/ui/diverging.js');
const colors = require('../../web/src/ui/colors.js');

function context(lab, sc, r) {
  const { Q, K, V, causal, validLens, mask } = sc.spec;
  const masked = lab.attention(Q, K, V, { causal, validLens, mask }).masked.toArray();
  const weights = r.correct.weights.toArray();
  return { m: weights.length, n: weights[0].length, hidden: masked.map((row) => row.map((x) => x === -Infinity)), weights, tokens: sc.tokens };
}

test('on each mistake\'s inputs exactly one choice names the cells the engine changes, the one without a reason to be wrong', async () => {
  const lab = await loadAttentionLab();
  const example = lab.examples().timeFlies;
  for (const { name } of lab.MISTAKES) {
    const sc = lesson.scenario(name, example, lesson.squareExample(lab));
    const r = lab.mistake(name, sc.spec);
    assert.equal(r.mistaken.error, undefined, `${name} runs on its inputs`);
    const ctx = context(lab, sc, r);
    const matching = lesson.LESSONS[name].choices.map((c, i) => [c, i]).filter(([c]) => {
      const cells = lesson.patternCells(c.pattern, ctx);
      return cells.every((row, i) => row.every((x, j) => x === r.cells[i][j]));
    });
    assert.equal(matching.length, 1, `${name}: ${matching.length} choices match`);
    const [choice, index] = matching[0];
    assert.equal(choice.why, '', `${name}: the matching choice is the intended one`);
    assert.equal(lesson.rightChoice(name, r.cells, ctx), index);
    const right = lesson.judge(name, index, r.cells, ctx);
    assert.deepEqual([right.ok, right.close], [true, true]);
    assert.ok(right.message.startsWith('Right. '), right.message);
    const wrongIndex = (index + 1) % lesson.LESSONS[name].choices.length;
    const wrong = lesson.judge(name, wrongIndex, r.cells, ctx);
    assert.deepEqual([wrong.ok, wrong.close], [true, false]);
    assert.ok(wrong.message.includes(lesson.LESSONS[name].choices[wrongIndex].why), 'a wrong answer gets its reason');
    assert.ok(wrong.message.includes(choice.label), 'and the engine\'s answer');
  }
});

test('the float16 inputs have pad queries that see no key, and the mistake turns exactly those rows to NaN', async () => {
  const lab = await loadAttentionLab();
  const sc = lesson.scenario('fp16-mask-fill', lab.examples().timeFlies);
  assert.deepEqual(sc.tokens, ['<pad>', '<pad>', 'time', 'flies', 'like']);
  const r = lab.mistake('fp16-mask-fill', sc.spec);
  assert.deepEqual(r.mistaken.weights.toArray().map((row) => row.some(Number.isNaN)), [true, true, false, false, false]);
  assert.equal(r.figure.value, 10);
  assert.equal(lesson.figureLine(r.figure), 'NaN weights: 10 (correct: 0)');
});

test('the padding figure on the lesson\'s inputs is the largest weight a real token puts on the pads, as float64 attention gives it', async () => {
  const lab = await loadAttentionLab();
  const { attentionHead } = require('./reference.js');
  const sc = lesson.scenario('no-padding-mask', lab.examples().timeFlies);
  assert.deepEqual(sc.tokens, ['time', 'flies', 'like', '<pad>', '<pad>']);
  const free = attentionHead(sc.spec.Q, sc.spec.K, sc.spec.V, 0.5);
  const onPads = free.weights.map((row) => row[3] + row[4]);
  const r = lab.mistake('no-padding-mask', sc.spec);
  assert.ok(Math.abs(r.figure.value - Math.max(...onPads.slice(0, 3))) < 1e-6, `${r.figure.value} vs ${onPads}`);
  assert.equal(lesson.figureLine(r.figure), `largest weight a real token puts on pad tokens (one row's total): ${lesson.figureValue(r.figure.value)} (correct: 0)`);
});

test('the padding mistake is shown with 1 to 4 pad tokens, and real tokens put more weight on more pads, as float64 attention gives it', async () => {
  const lab = await loadAttentionLab();
  const { attentionHead } = require('./reference.js');
  let last = 0;
  for (const pads of lesson.PAD_COUNTS) {
    const sc = lesson.scenario('no-padding-mask', lab.examples().timeFlies, null, { pads });
    assert.deepEqual(sc.tokens, ['time', 'flies', 'like', ...new Array(pads).fill('<pad>')]);
    assert.equal(sc.spec.validLens, 3);
    const free = attentionHead(sc.spec.Q, sc.spec.K, sc.spec.V, 0.5);
    const want = Math.max(...free.weights.slice(0, 3).map((row) => row.slice(3).reduce((a, b) => a + b, 0)));
    const r = lab.mistake('no-padding-mask', sc.spec);
    assert.ok(Math.abs(r.figure.value - want) < 1e-6, `${pads} pads: ${r.figure.value} vs ${want}`);
    assert.ok(r.figure.value > last, `${pads} pads give more than ${pads - 1}`);
    last = r.figure.value;
  }
  assert.deepEqual(lesson.PAD_COUNTS, [1, 2, 3, 4]);
  assert.equal(lesson.DEFAULT_PADS, 2);
});

test('the scaling mistakes at wider seeded keys: one choice still matches, and the slips sharpen or flatten more as d_k grows, as float64 attention gives it', async () => {
  const lab = await loadAttentionLab();
  const { attentionHead } = require('./reference.js');
  const example = lab.examples().timeFlies;
  const meanTop = (w) => w.reduce((s, row) => s + Math.max(...row), 0) / w.length;
  const last = { 'no-scaling': 0, 'scale-by-dk': 1 };
  for (const dk of lesson.DK_CHOICES.filter((d) => d !== lesson.DEFAULT_DK)) {
    const wide = lesson.wideExample(lab, example.tokens, dk);
    for (const [name, scale] of [['no-scaling', 1], ['scale-by-dk', 1 / dk]]) {
      const sc = lesson.scenario(name, example, null, { wide });
      assert.equal(sc.spec.Q[0].length, dk);
      const r = lab.mistake(name, sc.spec);
      const want = meanTop(attentionHead(sc.spec.Q, sc.spec.K, sc.spec.V, scale).weights);
      assert.ok(Math.abs(r.figure.value - want) < 1e-5, `${name} at d_k = ${dk}: ${r.figure.value} vs ${want}`);
      assert.ok(name === 'no-scaling' ? r.figure.value > last[name] : r.figure.value < last[name], `${name}: monotone in d_k`);
      last[name] = r.figure.value;
      const ctx = context(lab, sc, r);
      assert.equal(lesson.LESSONS[name].choices[lesson.rightChoice(name, r.cells, ctx)].why, '', `${name} at d_k = ${dk}: the intended choice matches`);
    }
  }
  assert.ok(last['no-scaling'] > 0.9 && last['scale-by-dk'] < 0.25, `at d_k = 256: ${JSON.stringify(last)}`);
});

test('a figure that is float32 rounding noise reads "0, up to rounding", decided by the engine\'s number', async () => {
  assert.deepEqual([6e-8, -3e-7, 0, 2e-6, 0.41326].map(lesson.figureValue), ['0, up to rounding', '0, up to rounding', '0', '2.0e-6', '0.4133']);
  const lab = await loadAttentionLab();
  const sc = lesson.scenario('softmax-wrong-axis', lab.examples().timeFlies);
  const r = lab.mistake('softmax-wrong-axis', sc.spec);
  // Float32 row sums of the correct weights and column sums of the mistaken ones miss 1 by rounding only.
  for (const x of [r.figures[0].correctValue, r.figures[1].value]) assert.ok(Math.abs(x) < 1e-6, `${x}`);
  for (const f of r.figures) {
    const line = lesson.figureLine(f);
    assert.ok(!/e-\d/.test(line), `no rounding noise printed: ${line}`);
  }
});

test('keys not transposed are shown on n = d_k tokens, and the full sentence fails loudly', async () => {
  const lab = await loadAttentionLab();
  const sc = lesson.scenario('keys-not-transposed', lab.examples().timeFlies, lesson.squareExample(lab));
  assert.equal(sc.tokens.length, 4);
  assert.match(lab.mistake('keys-not-transposed', sc.loud.spec).mistaken.error, /^Q K: Q is \[5, 4\] and K is \[5, 4\]/);
  assert.equal(lesson.figureLine({ label: 'largest |weight difference|', value: null, correctValue: 0 }), 'largest |weight difference|: none: the product failed (correct: 0)');
});

test('the difference scale is white at 0, red above, blue below, with readable text at both ends', () => {
  const s = divergingScale(0.4);
  const [r0, g0, b0] = s.rgb(0);
  assert.ok(Math.min(r0, g0, b0) > 230, `near white at 0: ${s.color(0)}`);
  const [rp, , bp] = s.rgb(0.4), [rn, , bn] = s.rgb(-0.4);
  assert.ok(rp > bp + 50 && bn > rn + 50, 'red above, blue below');
  assert.deepEqual(s.rgb(0.4), s.rgb(3), 'clamped beyond the range');
  for (const v of [-0.4, -0.2, 0, 0.2, 0.4]) assert.ok(colors.contrast(s.rgb(v), s.textColor(v) === '#000000' ? [0, 0, 0] : [255, 255, 255]) >= 4.5, `text on ${v}`);
  assert.deepEqual([s.low, s.high], ['\u22120.4', '+0.4']);
  assert.equal(s.stops.length, 11);
  assert.equal(s.stops[5][1], s.color(0));
});

test('on a dark background the difference scale is dark at 0 and brighter with the size of the difference, ends from the library', () => {
  const { RDBU_STOPS, DARK_CENTRE } = require('../../web/src/ui/diverging.js');
  const s = divergingScale(0.4, { dark: true });
  const hex = (c) => `#${c.map((x) => x.toString(16).padStart(2, '0')).join('')}`;
  assert.equal(hex(s.rgb(0)), DARK_CENTRE);
  assert.equal(hex(s.rgb(NaN)), DARK_CENTRE);
  assert.deepEqual([hex(s.rgb(0.4)), hex(s.rgb(-0.4))], [RDBU_STOPS[8], RDBU_STOPS[24]], 'red above, blue below: RdBu at 0.25 and 0.75');
  const bg = [24, 24, 29];  // the widgets' dark background
  for (const sign of [1, -1]) {
    let last = -1;
    for (let k = 0; k <= 20; k++) {
      const v = sign * 0.4 * k / 20;
      const c = colors.contrast(s.rgb(v), bg);
      assert.ok(c >= last, `contrast with the background grows with |v| (${v}: ${c})`);
      last = c;
      assert.ok(colors.contrast(s.rgb(v), s.textColor(v) === '#000000' ? [0, 0, 0] : [255, 255, 255]) >= 4.5, `text on ${v}`);
    }
  }
  assert.ok(colors.luminance(divergingScale(0.4).rgb(0)) > colors.luminance(divergingScale(0.4).rgb(0.4)), 'the light scale is the other way round');
});

test('the difference colours are d3-scale-chromatic\'s RdBu: each stop, and the curve between them within 1/255', () => {
  const { interpolateRdBu } = require('d3-scale-chromatic');
  const { RDBU_STOPS } = require('../../web/src/ui/diverging.js');
  const lib = (t) => /rgb\((\d+), (\d+), (\d+)\)/.exec(interpolateRdBu(t)).slice(1).map(Number);
  const hex = (c) => `#${c.map((x) => x.toString(16).padStart(2, '0')).join('')}`;
  assert.deepEqual(RDBU_STOPS, RDBU_STOPS.map((_, k) => hex(lib(k / (RDBU_STOPS.length - 1)))), 'the stops are the library\'s values');
  const s = divergingScale(1);
  let worst = 0;
  for (let i = 0; i <= 2000; i++) {
    const v = -1 + i / 1000;  // position 0.5 - v / 2 on the library's scale
    const mine = s.rgb(v), theirs = lib(0.5 - v / 2);
    worst = Math.max(worst, ...mine.map((c, k) => Math.abs(c - theirs[k])));
  }
  assert.ok(worst <= 1, `largest channel difference from the library: ${worst}`);
  assert.equal(s.color(0.3), `rgb(${s.rgb(0.3).join(', ')})`);
});

test('the element\'s mistake attribute, the lessons and the engine list the same mistakes in the same order', async () => {
  const lab = await loadAttentionLab();
  const { WIDGETS } = require('../../web/src/kit/manifest.js');
  const names = lab.MISTAKES.map((m) => m.name);
  assert.deepEqual(WIDGETS['mistakes-lab'].attributes.find((a) => a.name === 'mistake').values, names);
  assert.deepEqual(Object.keys(lesson.LESSONS), names);
});

test('an exported difference map keeps its diverging colours and range, and draws NaN as a gap', () => {
  const exporter = require('../../web/src/ui/export.js');
  const scale = divergingScale(0.5);
  const fig = { kind: 'heatmap', title: 'Difference', caption: '', settings: {}, rowLabels: ['a', 'b'], colLabels: ['x', 'y'],
    values: [[-0.5, 0.25], [NaN, 0]], masked: null, showNumbers: true, scale };
  const { items } = exporter.layout(fig);
  const fills = items.filter((it) => it.t === 'rect').map((it) => it.fill);  // [0] is the background
  assert.deepEqual(fills.slice(1, 5), [scale.color(-0.5), scale.color(0.25), exporter.THEME.mask, scale.color(0)]);
  const texts = items.filter((it) => it.t === 'text').map((it) => it.text);
  assert.ok(texts.includes('\u22120.5') && texts.includes('+0.5'), 'the legend shows the range');
  assert.ok(texts.includes('NaN'));
  assert.deepEqual(items.find((it) => it.t === 'gradient').stops, scale.stops);
  assert.ok(exporter.toSVG(fig).includes(scale.color(-0.5)));
});

test('each picture hatches the cells its own computation masked: the mistaken one keeps every mask but the one it forgets, and NaN stays NaN', async () => {
  const lab = await loadAttentionLab();
  const ex = lab.examples().timeFlies, square = lesson.squareExample(lab);
  for (const name of lab.MISTAKES.map((m) => m.name)) {
    const sc = lesson.scenario(name, ex, square);
    const { Q, K, V } = sc.spec;
    const r = lab.mistake(name, sc.spec);
    if (r.mistaken.error) continue;
    const masked = lab.attention(Q, K, V, lesson.mistakenMasks(name, sc.spec)).masked.toArray().map((row) => row.map((x) => x === -Infinity));
    const weights = r.mistaken.weights.toArray();
    const drawn = lesson.drawnMasked(masked, weights);
    drawn.forEach((row, i) => row.forEach((m, j) => {
      // A hatched cell is one the mistaken computation gave no weight (0, never NaN).
      if (m) assert.equal(weights[i][j], 0, `${name} [${i}, ${j}]: hatched, and the engine's mistaken weight is 0`);
    }));
    const count = drawn.flat().filter(Boolean).length;
    if (name === 'no-causal-mask' || name === 'no-padding-mask') assert.equal(count, 0, `${name}: the forgotten mask hides nothing`);
    if (name === 'mask-after-softmax') assert.equal(count, 10, `${name}: the causal mask's 10 cells, zeroed after the softmax`);
    if (name === 'fp16-mask-fill') {
      assert.ok(weights.some((row) => row.some(Number.isNaN)), 'the NaN rows are there');
      assert.ok(drawn.every((row, i) => row.every((m, j) => !(m && Number.isNaN(weights[i][j])))), 'a NaN cell is never drawn as masked');
    }
  }
  assert.deepEqual(lesson.maskLabels('mask-after-softmax').mistaken, 'masked (set to 0 after the softmax)');
});
