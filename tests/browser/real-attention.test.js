'use strict';
// Real pretrained attention (web/site/data: GPT-2 on one sentence, BERT base on a sentence pair,
// from BertViz's notebooks) on the element reference page, as an author pastes it: both drawn,
// and what the head summary shows a reader checked against numbers this test computes from the
// JSON itself (plain loops, float64), with the claims the page's prose makes; BERT's sentence
// filter (A to B, as BertViz) and [CLS] / [SEP] named as such.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, watchedPage, settled } = require('./browser.js');

const root = path.resolve(__dirname, '..', '..');
const read = (file) => JSON.parse(fs.readFileSync(path.join(root, 'web', 'site', 'data', file), 'utf8'));
const GPT2 = read('gpt2-quick-brown-fox.json');
const BERT = read('bert-cat-mat.json');

// Independent numbers from the JSON: per head, the mean over rows 1.. of a per-row quantity.
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rowsFrom1 = (p, f) => mean(p.slice(1).map((row, k) => f(row, k + 1)));
const heads = (d) => d.attentions.flatMap((layer, l) => layer.map((p, h) => ({ l, h, p })));
const previous = (p) => rowsFrom1(p, (row, i) => row[i - 1]);
const first = (p) => rowsFrom1(p, (row) => row[0]);
const onSep = (p, tokens) => rowsFrom1(p, (row) => row.reduce((s, w, j) => s + (j > 0 && tokens[j] === '[SEP]' ? w : 0), 0));
const next = (p) => mean(p.slice(0, -1).map((row, i) => row[i + 1]));

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser.close(); });

/** The summary's rows as the reader sees them: head name and each score cell's text, by column label. */
const summaryRows = (page, id) => page.$eval(id, (el) => {
  const table = el.shadowRoot.querySelector('.al-summary-table');
  const labels = Array.from(table.querySelectorAll('thead th'), (th) => th.textContent.replace(/[\u25b2\u25bc]/g, '').trim());
  return Array.from(table.querySelectorAll('tbody tr'), (tr) => Object.fromEntries(Array.from(tr.children, (c, k) => [labels[k], c.textContent])));
});

test('the element page draws real GPT-2 and BERT attention, and the summary finds what the literature reports, as the JSON says', async () => {
  const { page, problems, close } = await watchedPage(browser);
  await page.goto(pathToFileURL(path.join(root, 'dist', 'elements.html')).href, { timeout: 180000 });
  await page.locator('#real-attention').scrollIntoViewIfNeeded();
  await settled(page, 120000);
  for (const id of ['#example-gpt2', '#example-bert']) {
    assert.equal(await page.$eval(id, (el) => el.status), 'ready', id);
    assert.equal(await page.$eval(id, (el) => el.shadowRoot.querySelectorAll('.al-thumb').length), 144, `${id}: 12 x 12 heads`);
  }

  // GPT-2: sorted by previous token (the column's button, as a reader), layer 4 head 11 comes first.
  const gpt2 = heads(GPT2).map((x) => ({ ...x, prev: previous(x.p), first: first(x.p) }));
  const best = gpt2.reduce((a, b) => (b.prev > a.prev ? b : a));
  assert.deepEqual([best.l, best.h], [4, 11]);
  assert.ok(best.prev > 0.99, `previous-token score ${best.prev}`);
  await page.click('#example-gpt2 [role="tab"]:has-text("Summary")');
  await page.click('#example-gpt2 .al-summary-table button.al-sort:has-text("previous token")');
  const g = await summaryRows(page, '#example-gpt2');
  assert.equal(g[0].head, 'layer 4, head 11');
  assert.ok(Math.abs(Number(g[0]['previous token']) - best.prev) < 5.1e-4, `${g[0]['previous token']} vs ${best.prev}`);
  assert.ok(!('next token' in g[0]), 'a causal model has no next-token column');
  assert.ok(!('prefix matching' in g[0]), 'no token of this sentence repeats');
  const note = await page.$eval('#example-gpt2', (el) => el.shadowRoot.querySelector('.al-head-summary > p.al-muted:last-child').textContent);
  assert.match(note, /under a causal mask/);
  assert.match(note, /next token \(a causal mask hides the next token\)/);
  assert.match(note, /prefix matching \(no token repeats\)/);
  // Attention to the first token grows with depth: layer means.
  const layerFirst = (l) => mean(gpt2.filter((x) => x.l === l).map((x) => x.first));
  assert.ok(layerFirst(9) > layerFirst(0) + 0.4, `${layerFirst(0)} -> ${layerFirst(9)}`);

  // BERT: a bidirectional model: next token, special tokens ([SEP]) scores; no prefix matching, and why.
  const bert = heads(BERT).map((x) => ({ ...x, sep: onSep(x.p, BERT.tokens), next: next(x.p) }));
  const sepHeads = bert.filter((x) => x.l >= 4 && x.sep > 0.5);
  const early = bert.filter((x) => x.l < 4 && x.sep > 0.5);
  assert.ok(sepHeads.length >= 80, `${sepHeads.length} of 96 heads in layers 4 to 11 put over half on [SEP]`);
  const b = await summaryRows(page, '#example-bert');
  assert.equal(b.length, 144);
  assert.ok(!('prefix matching' in b[0]), 'prefix matching is left out of a bidirectional model');
  for (const r of b) {
    const [, l, h] = /^layer (\d+), head (\d+)$/.exec(r.head).map(Number);
    const x = bert[l * 12 + h];
    // The table shows 3 decimals of the engine's float32 mean; this test's float64 mean may sit across a rounding edge.
    assert.ok(Math.abs(Number(r['special tokens']) - x.sep) < 5.1e-4, `${r.head}: special tokens ${r['special tokens']} vs ${x.sep}`);
    assert.ok(Math.abs(Number(r['next token']) - x.next) < 5.1e-4, `${r.head}: next token ${r['next token']} vs ${x.next}`);
  }
  const bertNote = await page.$eval('#example-bert', (el) => el.shadowRoot.querySelector('.al-head-summary > p.al-muted:last-child').textContent);
  assert.match(bertNote, /prefix matching \(a test for induction, which reads only earlier tokens: these weights are not causal\)/);
  assert.doesNotMatch(bertNote, /causal mask\)/, 'no causal-mask note on bidirectional data');
  // The reader's filter: special tokens at least 0.5.
  await page.selectOption('#example-bert .al-head-summary select >> nth=1', 'specialTokens');
  await page.fill('#example-bert .al-head-summary input[type="number"]', '0.5');
  await page.locator('#example-bert .al-head-summary input[type="number"]').dispatchEvent('change');
  const filtered = await summaryRows(page, '#example-bert');
  assert.equal(filtered.length, sepHeads.length + early.length);
  assert.equal(filtered.filter((r) => Number(/^layer (\d+)/.exec(r.head)[1]) >= 4).length, sepHeads.length);
  const bestNext = bert.reduce((a, c) => (c.next > a.next ? c : a));
  assert.deepEqual([bestNext.l], [2]);

  // The page's prose: every number it states, against this test's own.
  const said = Object.fromEntries(await page.$$eval('#real-attention [data-real]', (els) => els.map((e) => [e.dataset.real, e.textContent])));
  const second = bert.slice().sort((p, q) => q.next - p.next).slice(0, 2);  // the two strongest next-token heads
  assert.deepEqual(said, {
    decimals: String(GPT2.decimals), 'gpt2-prev-layer': String(best.l), 'gpt2-prev-head': String(best.h), 'gpt2-prev': best.prev.toFixed(2),
    'gpt2-first-0': layerFirst(0).toFixed(2), 'gpt2-first-0-layer': '0', 'gpt2-first-9': layerFirst(9).toFixed(2), 'gpt2-first-9-layer': '9',
    'bert-sep-from': '4', 'bert-sep-count': String(sepHeads.length), 'bert-sep-of': String(bert.filter((x) => x.l >= 4).length),
    'bert-sep-early': String(early.length), 'bert-sep-early-of': String(bert.filter((x) => x.l < 4).length),
    'bert-next-layer': String(second[0].l), 'bert-next-heads': second.map((x) => x.h).sort((p, q) => p - q).join(' and '), 'bert-next': second[1].next.toFixed(2),
  });
  // The first-token means rise with depth: layer 9 is the deepest layer's peak the prose names.
  assert.ok(layerFirst(9) >= Math.max(...Array.from({ length: 12 }, (_, l) => layerFirst(l))) - 1e-9, 'layer 9 has the largest mean first-token score');
  assert.equal(second[0].l, second[1].l, 'both in one layer');
  assert.ok(Math.abs(second[0].next - second[1].next) < 0.01, 'both about the same');
  assert.deepEqual(problems, []);
  await close();
});

test('BERT\'s sentence pair: the head view\'s A \u2192 B filter shows sentence A\'s queries over sentence B\'s keys; [SEP] is named a special token; a repeated token is named with its position', async () => {
  const { page, problems, close } = await watchedPage(browser);
  await page.goto(pathToFileURL(path.join(root, 'dist', 'elements.html')).href, { timeout: 180000 });
  await page.locator('#example-bert').scrollIntoViewIfNeeded();
  await settled(page, 120000);
  const bert = '#example-bert';
  const b = BERT.sentenceBStart;
  assert.match(await page.$eval(bert, (el) => el.shadowRoot.querySelector('.al-model-meta').textContent), /^model: bert-base-uncased; sentence: The cat sat on the mat/);
  // The open head's readout names a token that occurs twice with its position: "the" at 1, 5, 8 and 12.
  await page.click(`${bert} [role="tab"]:has-text("Model view")`);
  await page.click(`${bert} .al-thumb[data-layer="2"][data-head="0"]`);
  const p = BERT.attentions[2][0];
  const readout = async (i, j) => {
    await page.hover(`${bert} .al-open-head [role="gridcell"][data-row="${i}"][data-col="${j}"]`);
    return page.$eval(bert, (el) => el.shadowRoot.querySelector('.al-open-head .al-readout').textContent);
  };
  assert.equal(BERT.tokens[b], 'the');
  assert.equal(await readout(5, b), `query \u201cthe\u201d (5) \u2192 key \u201cthe\u201d (${b}): ${p[5][b].toFixed(3)}`);
  assert.equal(await readout(0, 6), `query \u201c[CLS]\u201d \u2192 key \u201cmat\u201d: ${p[0][6].toFixed(3)}`);
  // The head view, filtered A -> B by the reader: A's tokens as queries, B's as keys.
  await page.click(`${bert} [role="tab"]:has-text("Head view")`);
  await page.selectOption(`${bert} .al-head-view label:has-text("attention from") select`, 'ab');
  assert.equal(await page.$eval(bert, (el) => el.state.pair), 'ab');
  const tokens = (side) => page.$$eval(`${bert} >> .al-token-${side} .al-token`, (els) => els.map((e) => e.getAttribute('aria-label')));
  assert.deepEqual(await tokens('left'), BERT.tokens.slice(0, b).map((t, i) => `${t} (${/^\[(CLS|SEP)\]$/.test(t) ? 'special token, ' : ''}query ${i})`));
  assert.deepEqual(await tokens('right'), BERT.tokens.slice(b).map((t, k) => `${t} (${t === '[SEP]' ? 'special token, ' : ''}key ${b + k})`));
  await page.locator(`${bert} .al-token-right .al-token`).nth(0).focus();
  const live = await page.$eval(bert, (el) => el.shadowRoot.querySelector('.al-head-view .al-readout').textContent);
  assert.match(live, new RegExp(`^\u201cthe\u201d \\(key ${b}\\), layer 0: `));
  // Sentence A holds "the" twice (1 and 5): wherever the line names it, it names its position too.
  assert.doesNotMatch(live.replace(/^[^:]*:/, ''), /\u201cthe\u201d(?! \(query [15]\))/);
  assert.doesNotMatch(live, /\u201c(cat|sat|on|mat)\u201d \(/, 'a token that occurs once is named without a position');
  // The filter travels with the page's address, as the other choices do.
  await page.waitForFunction(() => /example-bert\.pair=ab/.test(window.location.search));
  assert.deepEqual(problems, []);
  await close();
});

test('lesson 7 at 390 px: GPT-2\'s 12 heads a row and its open head 4.11 fit the widget; at 1280 px the shipped model\'s 4 heads a row use the width while a 12 x 12 model stays compact', async () => {
  const boxes = (page, id) => page.$eval(id, (el) => {
    const r = el.shadowRoot;
    const rect = (e) => { const b = e.getBoundingClientRect(); return { left: b.left, right: b.right, width: b.width, height: b.height }; };
    const scroller = r.querySelector('.al-model-scroll');
    const heat = r.querySelector('.al-open-head:not([hidden]) .al-scroll');
    return {
      grid: { scroll: scroller.scrollWidth, client: scroller.clientWidth, box: rect(scroller), thumbs: Array.from(r.querySelectorAll('.al-thumb'), rect) },
      open: heat && { scroll: heat.scrollWidth, client: heat.clientWidth, box: rect(heat), parts: Array.from(heat.querySelectorAll('[role="gridcell"], [role="columnheader"]'), rect) },
    };
  });
  const within = (inner, outer, what) => assert.ok(inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5, `${what}: ${JSON.stringify([inner, outer])}`);
  const rem = 15;  // the widgets' default --al-font-size
  for (const width of [390, 1280]) {
    const { page, problems, close } = await watchedPage(browser, { width, height: 900 });
    await page.goto(pathToFileURL(path.join(root, 'dist', 'lesson-7.html')).href, { timeout: 180000 });
    await settled(page, 120000);
    await page.locator('#pasted').scrollIntoViewIfNeeded();
    const gpt2 = await boxes(page, '#pasted');
    assert.equal(gpt2.grid.thumbs.length, 144);
    assert.ok(gpt2.grid.scroll <= gpt2.grid.client, `the grid of heads does not scroll sideways at ${width} px: ${gpt2.grid.scroll} in ${gpt2.grid.client}`);
    gpt2.grid.thumbs.forEach((t, k) => within(t, gpt2.grid.box, `head ${Math.floor(k / 12)}.${k % 12} whole at ${width} px`));
    assert.ok(gpt2.grid.thumbs.every((t) => t.width >= 20 && t.width <= 4 * rem + 0.5), `GPT-2's thumbnails from 20 px to 4 rem at ${width} px: ${gpt2.grid.thumbs[0].width}`);
    assert.ok(gpt2.open, 'the lesson opens head 4.11');
    assert.ok(gpt2.open.scroll <= gpt2.open.client, `the open head does not scroll sideways at ${width} px: ${gpt2.open.scroll} in ${gpt2.open.client}`);
    assert.equal(gpt2.open.parts.length, 1 + 10 + 10 * 10, 'the corner, ten key labels and a hundred cells');
    gpt2.open.parts.forEach((t, k) => within(t, gpt2.open.box, `the open head's part ${k} at ${width} px`));
    if (width === 1280) {
      await page.locator('#read .al-predict button.al-skip').press('Enter');
      const shipped = await boxes(page, '#read');
      assert.equal(shipped.grid.thumbs.length, 8, '2 layers x 4 heads');
      assert.ok(shipped.grid.thumbs.every((t) => t.width >= 110), `4 heads a row share the width: ${shipped.grid.thumbs[0].width} px of ${shipped.grid.box.width}`);
      shipped.grid.thumbs.forEach((t) => within(t, shipped.grid.box, 'a thumbnail'));
    }
    assert.deepEqual(problems, []);
    await close();
  }
});
