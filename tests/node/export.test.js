'use strict';
// Export files (CSV, TSV, JSON, SVG, PNG drawing calls) from figure data, without a browser.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const ex = require('../../web/src/ui/export.js');
const colors = require('../../web/src/ui/colors.js');
const { maskedFrom } = require('../../web/src/ui/heatmap-model.js');
const { parseCSV } = require('./csv-reader.js');


let lab, fig, r;
const tokens = ['time', 'flies', 'like', 'an', 'arrow'];
test.before(async () => {
  lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().timeFlies;
  r = lab.attention(Q, K, V, { causal: true });
  fig = { kind: 'heatmap', title: 'Attention weights', caption: 'Scale 0.5, causal mask on.', settings: { causal: true },
    rowLabels: tokens, colLabels: tokens, values: r.weights.toArray(), masked: maskedFrom(r.masked.toArray()), showNumbers: true };
});

test('exactNumber writes the shortest decimal that reads back as the same float32', () => {
  assert.equal(ex.exactNumber(Math.fround(0.1)), '0.1');
  assert.equal(ex.exactNumber(Math.fround(1 / 3)), '0.33333334');
  assert.equal(ex.exactNumber(0), '0');
  assert.equal(ex.exactNumber(1e-30), '1e-30', 'a double that is not a float32 keeps its own shortest form');
  assert.equal(ex.exactNumber(0.1), '0.1');
  const seeded = lab.randomNormal({ shape: [2000], seed: 5, stddev: 3 }).data;
  for (const x of seeded) {
    const s = ex.exactNumber(x);
    assert.equal(Math.fround(Number(s)), x, `${s} reads back as ${x}`);
    assert.ok(s.replace(/^-|e.*$/g, '').replace('.', '').replace(/^0+/, '').length <= 9, `${s} has at most 9 significant digits`);
  }
});

test('the CSV has a key-token header, one row per query token, and numbers equal to the engine\'s float32 weights', () => {
  const csv = ex.toCSV(fig);
  assert.ok(csv.endsWith('\r\n'));
  const rows = parseCSV(csv);
  assert.deepEqual(rows[0], ['query \\ key', ...tokens, 'caption']);
  assert.equal(rows.length, tokens.length + 1);
  rows.slice(1).forEach((row, i) => {
    assert.equal(row[0], tokens[i]);
    assert.equal(row.length, tokens.length + 2, 'every row has the same number of fields');
    row.slice(1, -1).forEach((cell, j) => assert.equal(Math.fround(Number(cell)), r.weights.data[i * tokens.length + j], `row ${i}, column ${j}`));
  });
  assert.equal(rows[1].at(-1), 'Scale 0.5, causal mask on.');
  assert.deepEqual(rows.slice(2).map((row) => row.at(-1)), ['', '', '', '']);
  assert.equal(Number(rows[1][2]), 0, 'a masked weight is the engine\'s 0');
});

test('tokens with commas, quotes, newlines and formula signs survive CSV and TSV as plain text', () => {
  const nasty = ['a,b', 'say "hi"', 'two\nlines', '=HYPERLINK("http://x")', 'tab\there'];
  const f = { ...fig, rowLabels: nasty, colLabels: nasty, values: fig.values, masked: null, caption: 'x, "y"' };
  const rows = parseCSV(ex.toCSV(f));
  assert.deepEqual(rows[0], ['query \\ key', 'a,b', 'say "hi"', 'two\nlines', '\'=HYPERLINK("http://x")', 'tab\there', 'caption']);
  assert.deepEqual(rows.slice(1).map((row) => row[0]), rows[0].slice(1, -1));
  assert.equal(rows[1].at(-1), 'x, "y"');
  const tsv = parseCSV(ex.toTSV(f), '\t');
  assert.deepEqual(tsv[0], rows[0]);
  assert.equal(Math.fround(Number(tsv[3][4])), r.weights.data[2 * 5 + 3]);
});

test('the JSON holds caption, settings, labels, the exact values and the mask, and round-trips', () => {
  const back = JSON.parse(ex.toJSON(fig));
  assert.deepEqual(Object.keys(back).sort(), ['caption', 'colLabels', 'masked', 'rowLabels', 'settings', 'title', 'values']);
  assert.deepEqual(back.values.flat(), Array.from(r.weights.data));
  assert.deepEqual(back.masked[0], [false, true, true, true, true]);
  assert.deepEqual(back.settings, { causal: true });
  assert.equal(back.caption, fig.caption);
});

test('the SVG colours each cell with the widget scale, greys masked cells, and labels both axes and the legend', () => {
  const svg = ex.toSVG(fig);
  assert.match(svg, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const rects = [...svg.matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="([^"]+)"/g)];
  const cells = rects.filter((m) => m[3] === m[4] && m[3] === '40');
  assert.equal(cells.length, 25);
  cells.forEach((m, k) => {
    const [i, j] = [Math.floor(k / 5), k % 5];
    assert.equal(m[5], j > i ? ex.THEME.mask : colors.color(fig.values[i][j]), `cell ${i}, ${j}`);
  });
  const texts = [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  for (const t of ['query \u2193', 'key \u2192', 'Attention weights', ...tokens, '0', '1', 'masked (\u2212\u221e before softmax)', '1.00']) assert.ok(texts.includes(t), `SVG shows "${t}"`);
  assert.ok(texts.includes(fig.values[1][0].toFixed(2)), 'numbers in the cells');
  assert.match(svg, new RegExp(`fill="${colors.textColor(fig.values[1][1])}" text-anchor="middle">${fig.values[1][1].toFixed(2)}<`), 'in the widget\'s text colour');
  assert.match(svg, /<title>Attention weights<\/title>\n<desc>Scale 0.5, causal mask on.<\/desc>/);
  assert.equal((svg.match(/<stop /g) || []).length, 11, 'the legend gradient has the 11 viridis stops');
});

test('a row kept back for an open question is blank in CSV and JSON and a "?" in the SVG, never its numbers', () => {
  const hidden = { ...fig, values: fig.values.map((row, i) => (i === 0 ? row.map(() => null) : row)) };
  const rows = parseCSV(ex.toCSV(hidden));
  assert.deepEqual(rows[1].slice(0, 6), ['time', '', '', '', '', '']);
  assert.equal(Math.fround(Number(rows[2][1])), r.weights.data[5], 'the other rows keep their numbers');
  assert.deepEqual(JSON.parse(ex.toJSON(hidden)).values[0], [null, null, null, null, null]);
  const svg = ex.toSVG(hidden);
  const texts = [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  assert.equal(texts.filter((t) => t === '?').length, 5);
  assert.ok(!texts.includes('1.00'), 'the hidden row 0 (weight 1 on itself) is not drawn');
  const cells = [...svg.matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="40" height="40" fill="([^"]+)"/g)];
  assert.deepEqual(cells.slice(0, 5).map((m) => m[3]), Array(5).fill(ex.THEME.line));
});

test('author tokens never become markup in the SVG, and characters XML forbids are replaced', () => {
  const hostile = ['</text><script>alert(1)</script>', 'a&b', '"q\'', 'bell\u0007', 'x'];
  const svg = ex.toSVG({ ...fig, rowLabels: hostile, colLabels: hostile, title: '<b>t</b>', caption: '<img src=x onerror=alert(1)>' });
  assert.ok(!/<script|<img|<b>/.test(svg));
  assert.ok(!svg.includes('\u0007'));
  assert.match(svg, /&lt;\/text&gt;&lt;scrip\u2026/, 'a long token is shortened and escaped');
  assert.match(svg, />a&amp;b</);
  assert.match(svg, />&quot;q&apos;</);
  assert.match(svg, />bell\ufffd</);
  assert.equal((svg.match(/<text /g) || []).length, (svg.match(/<\/text>/g) || []).length);
});

test('the PNG drawing calls on a canvas-like context match the SVG layout, at the asked scale', () => {
  const calls = [];
  const gradient = { stops: [], addColorStop(o, c) { this.stops.push([o, c]); } };
  const ctx = new Proxy({}, {
    get(target, name) {
      if (name in target) return target[name];
      if (name === 'createLinearGradient') return () => gradient;
      return (...args) => calls.push({ name, args, fillStyle: target.fillStyle, font: target.font, textAlign: target.textAlign });
    },
    set(target, name, value) { target[name] = value; return true; },
  });
  const l = ex.layout(fig);
  ex.draw(ctx, l, 2);
  assert.deepEqual(calls[1], { name: 'scale', args: [2, 2], fillStyle: undefined, font: undefined, textAlign: undefined });
  assert.equal(calls.filter((c) => c.name === 'save').length, calls.filter((c) => c.name === 'restore').length);
  const filled = calls.filter((c) => c.name === 'fillRect' && c.args[2] === 40 && c.args[3] === 40);
  assert.deepEqual(filled.map((c) => c.fillStyle), fig.values.flatMap((row, i) => row.map((v, j) => (j > i ? ex.THEME.mask : colors.color(v)))));
  const drawn = calls.filter((c) => c.name === 'fillText').map((c) => c.args[0]);
  const svgTexts = [...ex.toSVG(fig).matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
  assert.deepEqual(drawn, svgTexts);
  assert.equal(gradient.stops.length, 11);
  const first = calls.find((c) => c.name === 'fillRect');
  assert.deepEqual(first.args, [0, 0, l.width, l.height], 'a white background first');
  assert.equal(first.fillStyle, '#ffffff');
});

test('large matrices drop in-cell numbers and labels but keep every coloured cell', () => {
  const n = 100;
  const w = lab.attention(lab.randomNormal({ shape: [n, 4], seed: 1 }), lab.randomNormal({ shape: [n, 4], seed: 2 }), lab.randomNormal({ shape: [n, 2], seed: 3 })).weights.toArray();
  const big = { kind: 'heatmap', title: 'big', rowLabels: w.map((_, i) => `t${i}`), colLabels: w.map((_, i) => `t${i}`), values: w, masked: null };
  const l = ex.layout(big);
  assert.equal(l.items.filter((p) => p.t === 'rect' && p.w === 4).length, n * n);
  assert.ok(!l.items.some((p) => p.t === 'text' && p.text === 't5'));
  assert.ok(l.width < 600 && l.height < 700, `${l.width} x ${l.height}`);
  const rows = parseCSV(ex.toCSV(big));
  assert.equal(rows.length, n + 1);
  assert.equal(rows[1].length, n + 2);
});

test('a chart exports its series as columns, a legend with their names, and lines and points in their styles', () => {
  const stats = [1, 4, 16, 64].map((dk) => lab.dotProductStats({ dk, samples: 500, seed: 3 }));
  const chartFig = ex.chartFigure({ title: 'Standard deviation of q\u00b7k', desc: 'It follows \u221ad\u2096.', xLabel: 'd\u2096', yLabel: 'std', xs: [1, 4, 16, 64], yMax: 10,
    series: [{ name: '\u221ad\u2096', ys: stats.map((s) => s.expectedStd), cls: 'al-curve' }, { name: 'measured std', ys: stats.map((s) => s.std), cls: 'al-point', points: true }] },
  { samples: 500, seed: 3 }, 'Seed 3.');
  const rows = parseCSV(ex.toCSV(chartFig));
  assert.deepEqual(rows[0], ['d\u2096', '\u221ad\u2096', 'measured std', 'caption']);
  assert.deepEqual(rows.slice(1).map((row) => Number(row[2])), stats.map((s) => s.std));
  assert.equal(rows[1][3], 'It follows \u221ad\u2096. Seed 3.');
  const json = JSON.parse(ex.toJSON(chartFig));
  assert.deepEqual(json.series[1], { name: 'measured std', values: stats.map((s) => s.std) });
  assert.deepEqual(json.settings, { samples: 500, seed: 3 });
  const svg = ex.toSVG(chartFig);
  assert.equal((svg.match(/<circle /g) || []).length, 4 + 1, 'four points and one legend sample');
  assert.equal((svg.match(/<path d="M/g) || []).length, 1 + 1, 'the curve and its legend sample');
  for (const t of ['measured std', '\u221ad\u2096', 'd\u2096', 'std', '64']) assert.match(svg, new RegExp(`>${t}</text>`));
  assert.equal(ex.fileName(chartFig, 'png'), 'standard-deviation-of-q-k.png');
});
