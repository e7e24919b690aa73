'use strict';
// <position-lab> as a learner uses it, by keyboard alone: each part's prediction first, then
// the shuffle's reordering (Alt+arrows and the buttons), the RoPE positions typed and the
// layout mix-up switched on, the sinusoidal chart and the ALiBi heatmaps; shown numbers equal
// the engine's (node, same module); strict CSP; bad attributes give a visible message;
// screenshots at 1280 and 390 px, light and dark.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { launch, watchedPage, settled, sendPolicy, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { seedFrom } = require('../../web/src/ui/author-data.js');

const root = path.resolve(__dirname, '..', '..');
const shots = path.join(root, 'test-results', 'screenshots');
const HOST = 'tests/browser/hosts/position-lab.html';

let browser, server, lab;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  lab = await loadAttentionLab();
  fs.mkdirSync(shots, { recursive: true });
});
test.after(async () => {
  await server.close();
  await browser.close();
});

async function open(opts = {}, host = HOST) {
  const w = await watchedPage(browser, opts);
  const url = `${server.url}${host}`;
  if (opts.csp) await sendPolicy(w.page, url, opts.csp);
  await w.page.goto(url);
  await settled(w.page);
  return w;
}

const state = (page, id) => page.evaluate((i) => document.getElementById(i).state, id);
/** Tabs (or Shift+Tabs, by `key`) until the focused element (in any shadow root) matches `test`; fails after `limit` presses. */
async function tabTo(page, description, limit = 80, key = 'Tab') {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(key);
    const here = await page.evaluate(() => {
      let a = document.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      return a ? `${a.getRootNode().host ? a.getRootNode().host.id : ''}|${a.textContent.trim()}|${a.getAttribute('aria-label') || ''}|${a.id}|${a.labels && a.labels[0] ? a.labels[0].textContent.trim() : ''}` : '';
    });
    if (description(here)) return here;
  }
  throw new Error(`tabTo: nothing focused matched after ${limit} presses`);
}

test('shuffle by keyboard: predict, then Alt+arrows move a token; rows keep their values without positions, change with RoPE and (the reason said) with the causal mask', async () => {
  const { page, problems, close } = await open();
  const el = page.locator('#shuffle');
  assert.equal(await el.locator('table').isVisible(), false, 'the rows are hidden before the prediction');
  await tabTo(page, (x) => x.startsWith('shuffle|every row changes'));
  await page.keyboard.press('Enter');
  assert.match(await el.locator('.al-verdict-hint').textContent(), /Not yet/);
  await tabTo(page, (x) => x.startsWith('shuffle|each row keeps its value'), 5);
  await page.keyboard.press('Enter');
  assert.match(await el.locator('.al-verdict-ok').textContent(), /^Right/);
  assert.equal(await el.locator('table').isVisible(), true);
  // "dog" to the end with Alt+Right, focus following it
  await tabTo(page, (x) => x.startsWith('shuffle|dog|dog, place 2'));
  for (let i = 0; i < 3; i++) await page.keyboard.press('Alt+ArrowRight');
  assert.deepEqual(await el.locator('.al-pl-token').allTextContents(), ['the', 'bit', 'the', 'man', 'dog']);
  assert.match(await page.evaluate(() => document.activeElement.shadowRoot.activeElement.getAttribute('aria-label')), /^dog, place 5 of 5/);
  let s = await state(page, 'shuffle');
  assert.equal(s.order, '0,2,3,4,1');
  // the engine's numbers, from node: each token's row in the new order against the original
  const tokens = ['the', 'dog', 'bit', 'the', 'man'];
  const X = tokens.map((w) => Array.from(lab.randomNormal({ shape: [4], seed: seedFrom(w) }).data));
  const order = [0, 2, 3, 4, 1], Xs = order.map((o) => X[o]);
  const changes = (opts) => {
    const a = lab.attention(X, X, X, opts).output.toArray(), b = lab.attention(Xs, Xs, Xs, opts).output.toArray();
    return order.map((o, p) => lab.maxAbsDiff([b[p]], [a[o]]));
  };
  assert.deepEqual(s.changes, changes({}));
  assert.ok(s.changes.every((c) => c < 1e-5), `no row changes without positions: ${s.changes}`);
  assert.match(await el.locator('.al-pl-report').textContent(), /^Every row kept its value/);
  // the RoPE switch, by keyboard
  await tabTo(page, (x) => x.startsWith('shuffle|') && x.endsWith('positions (RoPE, explained further on)'));
  await page.keyboard.press('Space');
  s = await state(page, 'shuffle');
  assert.deepEqual(s.changes, changes({ rope: {} }));
  assert.ok(s.changes.some((c) => c > 1e-3), 'RoPE changes rows');
  assert.match(await el.locator('.al-pl-report').textContent(), /rows changed .*With RoPE/);
  await page.keyboard.press('Space');  // RoPE off
  // the mask's switch comes with the answer to its own question
  assert.equal(await el.locator('label:has-text("causal mask")').isVisible(), false, 'no mask switch before its question');
  await tabTo(page, (x) => x.startsWith('shuffle|yes: attention still sees only a set'), 3);
  await page.keyboard.press('Enter');
  assert.match(await el.locator('.al-verdict-hint').textContent(), /^Not yet/);
  await tabTo(page, (x) => x.startsWith('shuffle|no: some rows change'), 3);
  await page.keyboard.press('Enter');
  assert.match(await el.locator('.al-verdict-ok').last().textContent(), /^Right: the mask lets each token see only itself/);
  assert.equal(await el.locator('label:has-text("causal mask") input').isChecked(), true, 'the answer switches the mask on');
  s = await state(page, 'shuffle');
  assert.deepEqual(s.changes, changes({ causal: true }));
  assert.match(await el.locator('.al-pl-report').textContent(), /causal mask lets each token see only itself and the tokens before it.*\u201cbit\u201d saw the, dog, bit; now it sees the, bit\. Rows that still see the same tokens kept their values\./);
  // the buttons: Reverse, then Original order
  await tabTo(page, (x) => x.startsWith('shuffle|Reverse'));
  await page.keyboard.press('Enter');
  assert.deepEqual(await el.locator('.al-pl-token').allTextContents(), ['dog', 'man', 'the', 'bit', 'the']);
  await tabTo(page, (x) => x.startsWith('shuffle|Original order'), 3);
  await page.keyboard.press('Enter');
  assert.match(await el.locator('.al-pl-report').textContent(), /own order/);
  assert.deepEqual(problems, []);
  await close();
});

test('rope by keyboard: the listing\'s q and k score the same at (3, 1) and (10, 8); the layout mistake changes the score but keeps it relative; the q/k mix breaks it; typed positions follow, a bad one is refused beside the box', async () => {
  const { page, problems, close } = await open();
  const el = page.locator('#rope');
  await tabTo(page, (x) => x.startsWith('rope|the same'));
  await page.keyboard.press('Enter');
  assert.match(await el.locator('.al-verdict-ok').textContent(), /^Right: \u22122\.46396 at both/);
  const q = [[1.0, 0.5, -1.0, 2.0, 0.5, -0.5, 1.5, 0.25]], k = [[0.5, 1.0, 1.0, -0.5, 2.0, 0.5, -1.0, 1.0]];
  // the engine's own RoPE inside attention: query at m, key at n (one query over m - n + 1 keys from offset n)
  const score = (m, n) => lab.attention(q, Array(m - n + 1).fill(k[0]), Array(m - n + 1).fill([1]), { scale: 1, rope: { offset: n } }).scores.data[0];
  const turned = (m, n, lq, lk) => lab.attention(lab.rope(q, { layout: lq, offset: m }), lab.rope(k, { layout: lk, offset: n }), [[1]], { scale: 1 }).scores.data[0];
  let s = await state(page, 'rope');
  assert.equal(s.mode, 'right');
  assert.ok(Math.abs(s.scores[0] - score(3, 1)) <= 1e-6 * Math.max(1, Math.abs(s.scores[0])), `${s.scores[0]} vs ${score(3, 1)}`);
  assert.ok(Math.abs(s.scores[1] - s.scores[0]) <= 8 * 2 ** -23 * Math.max(1, Math.abs(s.scores[0])), `same within float32: ${s.scores}`);
  assert.equal(await el.locator('.al-pl-report').getAttribute('data-same'), 'true');
  assert.equal(await el.locator('.al-pl-dial').count(), 8, 'four pairs at each of two position pairs');
  assert.equal(await el.locator('.al-pl-stale').isVisible(), false);
  // the mistake the lesson describes: the model loaded as half-split, q and k both turned that way
  // (a radio group: Tab reaches the checked choice, the arrows move the choice)
  await tabTo(page, (x) => x.startsWith('rope|') && x.includes('right: q and k both interleaved'));
  await page.keyboard.press('ArrowDown');
  assert.match(await page.evaluate(() => document.getElementById('rope').shadowRoot.activeElement.labels[0].textContent), /^the mistake: loaded as half-split, q and k both half-split/);
  s = await state(page, 'rope');
  assert.equal(s.mode, 'wrong');
  assert.deepEqual(s.scores, [turned(3, 1, 'half', 'half'), turned(10, 8, 'half', 'half')]);
  assert.ok(Math.abs(s.scores[0] - -1.894179) < 1e-5, `the prose's -1.89: ${s.scores[0]}`);
  assert.equal(await el.locator('.al-pl-report').getAttribute('data-same'), 'true', 'still relative');
  assert.match(await el.locator('.al-pl-report').textContent(), /^score at \(3, 1\): \u22121\.89418; at \(10, 8\): \u22121\.89418\. Not the \u22122\.46396 the model was trained for, yet the same at both: the score still depends on m \u2212 n only\./);
  // the verdict above is said to be about the right layout
  assert.equal(await el.locator('.al-pl-stale').isVisible(), true);
  assert.match(await el.locator('.al-pl-stale').textContent(), /verdict above is for the right layout/);
  assert.match(await el.locator('.al-pl-dials').textContent(), /dimensions \(0, 4\), \(1, 5\), \(2, 6\), \(3, 7\) of the turned vectors \(half-split pairs\)/);
  // the other bug, a separate choice: q half-split, k interleaved; no longer relative
  await page.keyboard.press('ArrowDown');
  s = await state(page, 'rope');
  assert.equal(s.mode, 'mixed');
  assert.deepEqual(s.scores, [turned(3, 1, 'half', 'interleaved'), turned(10, 8, 'half', 'interleaved')]);
  assert.ok(Math.abs(s.scores[0] - s.scores[1]) > 1e-3, `the mix breaks the relative score: ${s.scores}`);
  assert.equal(await el.locator('.al-pl-report').getAttribute('data-same'), 'false');
  assert.match(await el.locator('.al-pl-report').textContent(), /Different: q and k turn in different pairs/);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');  // right again
  assert.equal((await state(page, 'rope')).mode, 'right');
  assert.equal(await el.locator('.al-pl-stale').isVisible(), false);
  // typing positions: shift 1000 keeps the score; a bad value is refused beside the box
  await el.locator('input[type="number"]').nth(2).focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('1000');
  await page.keyboard.press('Tab');
  s = await state(page, 'rope');
  assert.equal(s.shift, 1000);
  assert.ok(Math.abs(s.scores[1] - s.scores[0]) <= 8 * 2 ** -23 * Math.max(1, Math.abs(s.scores[0])));
  assert.ok(Math.abs(s.scores[1] - score(1003, 1001)) <= 2e-6 * Math.max(1, Math.abs(s.scores[1])));
  await el.locator('input[type="number"]').nth(0).focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('-5');
  await page.keyboard.press('Tab');
  assert.match(await el.locator('.al-field-message').textContent(), /^m must be a whole number from 0 to 100000; the view still shows m = 3\./);
  assert.equal((await state(page, 'rope')).m, 3);
  assert.deepEqual(problems, []);
  await close();
});

test('shuffle: swapping the two "the"s by keyboard leaves the sentence, and every row, as it was: nothing is marked changed', async () => {
  const { page, problems, close } = await open();
  const el = page.locator('#shuffle');
  await el.locator('.al-skip').first().click();
  await tabTo(page, (x) => x.startsWith('shuffle|') && x.endsWith('positions (RoPE, explained further on)'));
  await page.keyboard.press('Space');
  await el.locator('.al-skip').nth(1).click();  // the mask's question: the mask comes on
  // the first "the" to place 4, then the other "the" (now at place 3) to the front
  await el.locator('.al-pl-token').first().focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('Alt+ArrowRight');
  await el.locator('.al-pl-token').nth(2).focus();
  for (let i = 0; i < 2; i++) await page.keyboard.press('Alt+ArrowLeft');
  const s = await state(page, 'shuffle');
  assert.equal(s.order, '3,1,2,0,4');
  assert.deepEqual([s.rope, s.causal], [true, true]);
  assert.deepEqual(await el.locator('.al-pl-token').allTextContents(), ['the', 'dog', 'bit', 'the', 'man']);
  assert.ok(s.changes.every((c) => c < 1e-5), `no row changes: ${s.changes}`);
  assert.equal(await el.locator('td.al-pl-changed').count(), 0);
  assert.match(await el.locator('.al-pl-report').textContent(), /^The same sentence: two copies of one word swapped places\./);
  // one more move: rows change again, each compared with its word's row
  await page.keyboard.press('Alt+ArrowRight');
  assert.match(await el.locator('.al-pl-report').textContent(), /rows changed/);
  assert.deepEqual(problems, []);
  await close();
});

test('sinusoidal and alibi: predictions, then the engine\'s dot products and biases', async () => {
  const { page, problems, close } = await open();
  const sin = page.locator('#sinusoidal');
  assert.equal(await sin.locator('.al-pl-chart').isVisible(), false);
  await tabTo(page, (x) => x.startsWith('sinusoidal|the same'));
  await page.keyboard.press('Enter');
  const table = lab.positions({ kind: 'sinusoidal', n: 32, d: 16 });
  const sc = lab.attention(table, table, table, { scale: 1 }).scores.toArray();
  const verdict = await sin.locator('.al-verdict-ok').textContent();
  assert.ok(verdict.includes(`${sc[3][1].toFixed(4).replace(/0+$/, '')} and ${sc[10][8].toFixed(4).replace(/0+$/, '')}`), verdict);
  assert.equal(await sin.locator('.al-pl-chart svg[role="img"]').isVisible(), true);
  assert.equal(await sin.locator('.al-heatmap [role="gridcell"]').count(), 32 * 16);
  const cell = await sin.locator('.al-heatmap [role="gridcell"]').nth(16 * 0 + 5).getAttribute('aria-label');
  assert.ok(cell.includes(String(Number(table.toArray()[5][0].toFixed(3)))) || cell.includes('\u2212'), cell);

  const alibi = page.locator('#alibi');
  await tabTo(page, (x) => x.startsWith('alibi|head 1'));
  await page.keyboard.press('Enter');
  assert.match(await alibi.locator('.al-verdict-hint').textContent(), /Not yet/);
  await tabTo(page, (x) => x.startsWith('alibi|head 8'), 3);
  await page.keyboard.press('Enter');
  assert.match(await alibi.locator('.al-verdict-ok').textContent(), /^Right/);
  const captions = await alibi.locator('figcaption').allTextContents();
  assert.deepEqual(captions, [1, 2, 3, 4, 5, 6, 7, 8].map((hd) => `head ${hd}slope 1/${2 ** hd}`));
  // head 1's bias cells are the engine's: -slope x distance, masked above the diagonal
  const labels = await alibi.locator('.al-heatmap').first().locator('[role="gridcell"]').evaluateAll((cells) => cells.map((c) => c.getAttribute('aria-label')));
  assert.match(labels[6 * 5 + 0], /bias \u22122\.5\b/, labels[30]);
  assert.match(labels[1], /masked/, labels[1]);
  assert.deepEqual(problems, []);
  await close();
});

test('the URL keeps the shuffle\'s order and switches and the RoPE positions: a link opens the same view', async () => {
  const w = await watchedPage(browser);
  await w.page.goto(`${server.url}${HOST}?shuffle.order=4,1,2,3,0&shuffle.causal=1&shuffle.revealed=1&rope.m=20&rope.n=5&rope.shift=3&rope.mixup=1&rope.revealed=1`);
  await settled(w.page);
  const el = w.page.locator('#shuffle');
  assert.deepEqual(await el.locator('.al-pl-token').allTextContents(), ['man', 'dog', 'bit', 'the', 'the']);
  assert.equal(await el.locator('table').isVisible(), true, 'revealed');
  assert.equal(await el.locator('input[type="checkbox"]').nth(1).isChecked(), true, 'causal mask on');
  const s = await state(w.page, 'rope');
  assert.deepEqual([s.m, s.n, s.shift, s.mode], [20, 5, 3, 'mixed'], 'an older link\'s mixup=1 is the q/k mix');
  assert.match(await w.page.locator('#rope .al-pl-report').textContent(), /^score at \(20, 5\): .*; at \(23, 8\): /);
  // a change is written back to the URL
  await el.locator('.al-pl-token').first().focus();
  await w.page.keyboard.press('Alt+ArrowRight');
  await w.page.waitForFunction(() => new URLSearchParams(location.search).get('shuffle.order') === '1,4,2,3,0');
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('export by keyboard: the PE(i)\u00b7PE(j) chart\'s CSV holds the engine\'s dot products', async () => {
  const { page, problems, close } = await open();
  await page.locator('#sinusoidal .al-skip').click();
  const save = async (button) => {
    await button.focus();
    await page.keyboard.press('Enter');
    for (let k = 0; k < 2; k++) await page.keyboard.press('ArrowDown');  // PNG, SVG, CSV
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    return fs.readFileSync(await download.path(), 'utf8').trim().split(/\r?\n/).map((line) => line.split(','));
  };
  const chart = await save(page.locator('#sinusoidal .al-pl-chart .al-export-button'));
  const table = lab.positions({ kind: 'sinusoidal', n: 32, d: 16 });
  const sc = lab.attention(table, table, table, { scale: 1 }).scores.toArray();
  assert.deepEqual(chart[0].slice(0, 3), ['i \u2212 j', 'i = 10', 'i = 21']);
  chart.slice(1).forEach((row, t) => {
    const k = t - 10;
    assert.equal(Number(row[0]), k);
    assert.equal(Math.fround(Number(row[1])), sc[10][10 - k], `i = 10, k = ${k}`);
    assert.equal(Math.fround(Number(row[2])), sc[21][21 - k], `i = 21, k = ${k}`);
  });
  assert.deepEqual(problems, []);
  await close();
});

test('strict CSP: every part draws with no violation', async () => {
  const { page, problems, close } = await open({ csp: CSP.strict });
  assert.deepEqual(await page.$$eval('position-lab', (els) => els.map((e) => `${e.id}:${e.status}`)), ['shuffle:ready', 'sinusoidal:ready', 'rope:ready', 'alibi:ready']);
  assert.deepEqual(problems, []);
  await close();
});

test('bad attributes: a visible message naming the attribute and what is expected', async () => {
  const { page, close } = await open({}, 'tests/browser/hosts/position-lab-bad.html');
  const message = (id) => page.locator(`#${id} .al-error-message`).textContent();
  assert.equal(await message('bad-part'), '<position-lab>: part="xpos" is not valid; expected one of shuffle, sinusoidal, rope, alibi');
  assert.equal(await message('bad-d'), '<position-lab>: d=9 is odd; the sinusoidal part shows pairs of dimensions, expected an even number');
  assert.match(await message('bad-n'), /^<position-lab>: n=5 is too few positions for the sinusoidal part; expected 12 to 64/);
  assert.match(await message('bad-heads'), /^<position-lab>: heads="40" is not valid; expected a whole number from 1 to 16/);
  assert.match(await message('bad-base'), /^<position-lab>: base="-3" is not valid; expected a number from 2 to/);
  assert.match(await message('bad-layout'), /^<position-lab>: layout="neox" is not valid; expected one of interleaved, half/);
  assert.equal(await message('bad-tokens'), '<position-lab>: tokens has 1 words; the shuffle part needs 2 to 10');
  assert.match(await message('bad-alibi-n'), /^<position-lab>: n=40 is too many tokens for the alibi part; expected 2 to 12/);
  await close();
});

test('screenshots at 1280 and 390 px, light and dark, every part revealed', async () => {
  for (const colorScheme of ['light', 'dark']) {
    for (const width of [1280, 390]) {
      const { page, problems, close } = await open({ width, colorScheme });
      for (const id of ['shuffle', 'sinusoidal', 'rope', 'alibi']) await page.locator(`#${id} .al-skip`).first().click();
      await page.locator('#shuffle .al-skip').nth(1).click();  // the mask's question
      await page.locator('#shuffle .al-pl-token').nth(1).focus();
      await page.keyboard.press('Alt+ArrowRight');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(overflow <= 0, `the page does not scroll sideways at ${width} px (${overflow} px)`);
      await page.screenshot({ path: path.join(shots, `position-lab-${width}-${colorScheme}.png`), fullPage: true });
      for (const id of ['shuffle', 'sinusoidal', 'rope', 'alibi']) await page.locator(`#${id}`).screenshot({ path: path.join(shots, `position-lab-${width}-${colorScheme}-${id}.png`) });
      assert.deepEqual(problems, []);
      await close();
    }
  }
});
