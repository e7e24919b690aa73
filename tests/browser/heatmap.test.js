'use strict';
// <attention-heatmap> as a learner reads it (issue 7, item 4 and the sentence of item 5):
// axis titles, a readout of the cell under the pointer or focus, the causal mask's
// renormalisation of a row, the learner's own sentence, and the row-0 question's row kept
// hidden on a canvas (> 32 tokens) as on the grid. Shown numbers are checked against the
// engine and a float64 reference.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { launch, watchedPage, openSettled, settled } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const reference = require('../node/reference.js');
const colors = require('../../web/src/ui/colors.js');

const root = path.resolve(__dirname, '..', '..');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
let browser, server, lab;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  lab = await loadAttentionLab();
});
test.after(async () => {
  await server.close();
  await browser.close();
});

const open = (page, opts) => openSettled(browser, `${server.url}dist/${page}`, opts);
const q = (s) => `\u201c${s}\u201d`;
const readout = (p, sel) => p.textContent(`${sel} .al-readout`);

test('heatmap axis titles "query ↓" and "key →" are shown whole at 1280 and 390 px, and axe finds nothing, minor findings included', async () => {
  for (const width of [1280, 390]) {
    const { page: p, problems, close } = await open('lesson-1.html', { width, height: 900 });
    const titles = await p.$eval('#matrix', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-axis'), (a) => {
      const r = a.getBoundingClientRect();
      return { text: a.textContent, clipped: a.scrollWidth > a.clientWidth + 1, visible: r.width > 0 && r.height > 0, size: parseFloat(getComputedStyle(a).fontSize) };
    }));
    assert.deepEqual(titles.map((t) => t.text), ['key \u2192', 'query \u2193']);
    for (const t of titles) {
      assert.ok(t.visible && !t.clipped, `"${t.text}" is visible and not cut at ${width} px`);
      assert.ok(t.size >= 11, `"${t.text}" is ${t.size} px`);
    }
    await p.evaluate(AXE);
    const violations = await p.evaluate(async () => {
      const r = await window.axe.run(document.querySelector('#matrix'), { resultTypes: ['violations'] });
      return r.violations.map((v) => `${v.id} (${v.impact})`);
    });
    assert.deepEqual(violations, []);
    // The corner heads the column of row labels, and names it.
    assert.equal(await p.locator('#matrix').getByRole('columnheader', { name: 'query', exact: true }).count(), 1);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('with the numbers off, hovering a cell or focusing it from the keyboard shows its engine value in a visible polite readout', async () => {
  const ex = lab.examples().timeFlies;
  const w = lab.attention(ex.Q, ex.K, ex.V).weights;
  const { page: p, problems, close } = await open('index.html');
  assert.equal(await p.$eval('#preview', (el) => el.state.numbers), false);
  assert.equal(await p.textContent('#preview [role="gridcell"][data-row="0"][data-col="1"]'), '', 'no number in the cell');
  const live = await p.$eval('#preview', (el) => {
    const r = el.shadowRoot.querySelector('.al-readout');
    return { polite: r.getAttribute('aria-live'), height: r.getBoundingClientRect().height, sr: r.classList.contains('al-sr') };
  });
  assert.deepEqual([live.polite, live.sr], ['polite', false]);
  assert.ok(live.height > 10, 'the readout takes room on screen');
  await p.hover('#preview [role="gridcell"][data-row="0"][data-col="1"]');
  assert.equal(await readout(p, '#preview'), `query ${q('time')} \u2192 key ${q('flies')}: ${w.get(0, 1).toFixed(2)}`);
  await p.hover('#preview [role="gridcell"][data-row="3"][data-col="2"]');
  assert.equal(await readout(p, '#preview'), `query ${q('an')} \u2192 key ${q('like')}: ${w.get(3, 2).toFixed(2)}`);
  // The rows lesson 1 asks about (flies and like) are kept back: hovering one reads no weight.
  await p.hover('#preview [role="gridcell"][data-row="1"][data-col="4"]');
  assert.equal(await readout(p, '#preview'), `query ${q('flies')} \u2192 key ${q('arrow')}: kept back: a lesson asks you to work this row out`);
  // The keyboard: Tab onto the grid, then arrows.
  await p.focus('#preview input[type="checkbox"]');
  for (let i = 0; i < 12 && !(await p.evaluate(() => document.activeElement.shadowRoot?.activeElement?.getAttribute('role') === 'gridcell')); i++) await p.keyboard.press('Tab');
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('End');
  assert.equal(await readout(p, '#preview'), `query ${q('flies')} \u2192 key ${q('arrow')}: kept back: a lesson asks you to work this row out`);
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('ArrowDown');
  assert.equal(await readout(p, '#preview'), `query ${q('an')} \u2192 key ${q('arrow')}: ${w.get(3, 4).toFixed(2)}`);
  await p.click('#preview label:has-text("causal mask")');
  await p.focus('#preview [role="gridcell"][tabindex="0"]');
  assert.equal(await readout(p, '#preview'), `query ${q('an')} \u2192 key ${q('arrow')}: masked, weight 0`);
  assert.deepEqual(problems, []);
  await close();
});

test('under the causal mask the focused row says which weights it keeps, their sum, and the share they had without the mask, as a float64 reference gives', async () => {
  const ex = lab.examples().timeFlies;
  const [Q, K] = [ex.Q.toArray(), ex.K.toArray()];
  const scale = 1 / Math.sqrt(Q[0].length);
  const open64 = reference.attentionHead(Q, K, K, scale).weights;
  const causal64 = reference.attentionHead(Q, K, K, scale, (i, j) => j <= i).weights;
  const { page: p, problems, close } = await open('lesson-1.html');
  assert.equal(await p.isVisible('#matrix .al-renorm'), false, 'nothing to renormalise without the mask');
  await p.click('#matrix button:has-text("Show the row")');   // lesson 1's row of like, kept back until asked for
  await p.click('#matrix label:has-text("causal mask")');
  await p.hover('#matrix [role="gridcell"][data-row="2"][data-col="4"]');
  const kept = causal64[2].slice(0, 3);
  const share = open64[2].slice(0, 3).reduce((a, b) => a + b, 0);
  let text = await p.textContent('#matrix .al-renorm');
  assert.equal(text, `Row ${q('like')} sees 3 of 5 keys (${q('time')}, ${q('flies')}, ${q('like')}): ${kept.map((x) => x.toFixed(2)).join(' + ')} = 1.00. `
    + `Without the mask this row was spread over all 5 keys and these 3 got ${Number(share.toFixed(3))} of it; the softmax now divides each of them by ${Number(share.toFixed(3))}, so the row sums to 1 again.`);
  // The factor the text names is the one the shown weights grew by.
  kept.forEach((x, j) => assert.ok(Math.abs(x - open64[2][j] / share) < 1e-12));
  await p.focus('#matrix [role="gridcell"][tabindex="0"]');
  for (let i = 0; i < 4; i++) await p.keyboard.press('ArrowDown');
  text = await p.textContent('#matrix .al-renorm');
  assert.match(text, new RegExp(`^Row ${q('arrow')} sees all 5 keys: nothing is masked`));
  // Temperature changes the row: the readout follows.
  await p.keyboard.press('ArrowUp');
  await p.focus('#matrix input[type="range"]');
  await p.keyboard.press('ArrowRight');
  const hot64 = reference.attentionHead(Q, K, K, scale / 2).weights;
  const hotShare = hot64[3].slice(0, 4).reduce((a, b) => a + b, 0);
  assert.match(await p.textContent('#matrix .al-renorm'), new RegExp(`^Row ${q('an')} sees 4 of 5 keys .* these 4 got ${Number(hotShare.toFixed(3))} of it`));
  // A screen reader hears the temperature, not the slider's position (3 of 0..4).
  assert.equal(await p.getAttribute('#matrix input[type="range"]', 'aria-valuetext'), '2');
  assert.deepEqual(problems, []);
  await close();
});

test("the heatmap takes the learner's own sentence with the stepper's limits, message and seeded vectors, and keeps it in the link", async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  const input = '#matrix .al-sentence input';
  await p.fill(input, 'one two three four five six seven eight nine ten eleven twelve thirteen');
  await p.press(input, 'Enter');
  assert.match(await p.textContent('#matrix .al-sentence-message'), /2 to 12 words .*your text has 13 words\)/);
  await p.fill(input, `${'x'.repeat(41)} y`);
  await p.click('#matrix button:has-text("Use it")');
  assert.match(await p.textContent('#matrix .al-sentence-message'), /is 41 characters long; each word may have at most 40/);
  assert.deepEqual((await p.$eval('#matrix', (el) => el.state)).tokens, ['time', 'flies', 'like', 'an', 'arrow']);
  await p.fill(input, 'the cat sat on the mat');
  await p.press(input, 'Enter');
  const state = await p.$eval('#matrix', (el) => el.state);
  assert.deepEqual([state.tokens, state.ownSentence], [['the', 'cat', 'sat', 'on', 'the', 'mat'], true]);
  assert.match(await p.textContent('#matrix .al-sentence-message'), /^Using your sentence with made-up vectors, drawn from a seed made of the whole sentence: the same sentence always gets the same numbers, each word \(a repeated one too\) gets a random vector of its own/);
  assert.equal(await p.locator('#matrix [role="gridcell"]').count(), 36);
  // As the note says, the two "the" are two different vectors: their rows of weights differ.
  const row = (i) => p.$$eval(`#matrix [role="gridcell"][data-row="${i}"]`, (els) => els.map((e) => e.dataset.value));
  assert.notDeepEqual(await row(0), await row(4));
  // The stepper given the same sentence shows the same row: the same seeded vectors.
  await p.fill('#lab .al-sentence input', 'the cat sat on the mat');
  await p.press('#lab .al-sentence input', 'Enter');
  await p.click('#lab button[aria-pressed] >> text="cat"');
  while ((await p.$eval('#lab', (el) => el.state.stepIndex)) < 2) await p.click('#lab button:has-text("Next")');
  const stepperRow = await p.$$eval('#lab [data-key^="weight:"]', (els) => els.map((e) => Number(e.textContent)));
  const heatmapRow = await p.$$eval('#matrix [role="gridcell"][data-row="1"]', (els) => els.map((e) => Number(e.dataset.value)));
  assert.equal(stepperRow.length, 6);
  stepperRow.forEach((x, j) => assert.ok(Math.abs(x - heatmapRow[j]) <= 0.0005 + 1e-9, `weight ${j}: stepper ${x}, heatmap ${heatmapRow[j]}`));
  await p.waitForFunction(() => /matrix\.words=the\+cat\+sat\+on\+the\+mat/.test(location.search), null, { timeout: 2000 });
  const link = await p.evaluate(() => location.href);
  const again = await watchedPage(browser);
  await again.page.goto(link);
  await settled(again.page);
  assert.deepEqual(await again.page.$eval('#matrix', (el) => el.state.tokens), ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.deepEqual(await again.page.$$eval('#matrix [role="gridcell"][data-row="1"]', (els) => els.map((e) => Number(e.dataset.value))), heatmapRow);
  // Back to the author's sentence: the author's vectors, and nothing left in the link.
  await again.page.fill('#matrix .al-sentence input', 'time flies like an arrow');
  await again.page.press('#matrix .al-sentence input', 'Enter');
  assert.match(await again.page.textContent('#matrix .al-sentence-message'), /Back to the original sentence/);
  const ex = lab.examples().timeFlies;
  // The row of like is lesson 1's exercise again, kept back until the reader asks for it.
  assert.equal(await again.page.textContent('#matrix [role="gridcell"][data-row="2"][data-col="4"]'), '?');
  await again.page.click('#matrix button:has-text("Show the row")');
  assert.equal(Number(await again.page.getAttribute('#matrix [role="gridcell"][data-row="2"][data-col="4"]', 'data-value')).toFixed(4), lab.attention(ex.Q, ex.K, ex.V).weights.get(2, 4).toFixed(4));
  await again.page.waitForFunction(() => !/matrix\.words/.test(location.search), null, { timeout: 2000 });
  assert.deepEqual(again.problems, []);
  await again.close();
  assert.deepEqual(problems, []);
  await close();
});

test('on a canvas (40 tokens) the row-0 question keeps row 0 hidden under the mask, in pixels, readout and export, until answered (a first miss keeps it hidden)', async () => {
  const { page: p, problems, close } = await open('../tests/browser/hosts/live.html');
  const tokens = Array.from({ length: 40 }, (_, i) => `w${i + 1}`);
  await p.evaluate((words) => {
    const el = document.createElement('attention-heatmap');
    el.id = 'big';
    el.setAttribute('tokens', words);
    el.setAttribute('prompt', 'row0');
    el.setAttribute('causal', '');
    document.querySelector('main').append(el);
  }, tokens.join(' '));
  await settled(p);
  assert.equal(await p.locator('#big [role="gridcell"]').count(), 0, 'drawn on a canvas');
  const pixel = (i, j) => p.$eval('#big', (el, [r, c]) => {
    const canvas = el.shadowRoot.querySelector('canvas');
    const cell = canvas.width / 40;
    return Array.from(canvas.getContext('2d').getImageData(c * cell + cell / 2, r * cell + cell / 2, 1, 1).data.slice(0, 3));
  }, [i, j]);
  const one = colors.rgb(1);
  assert.notDeepEqual(await pixel(0, 0), one, 'row 0 is not painted with its weight of 1');
  assert.deepEqual(await pixel(0, 0), await pixel(0, 39), 'row 0 is one flat colour: nothing to read from it');
  const second = await p.$eval('#big', (el) => el.state);
  assert.equal(second.causal, true);
  await p.focus('#big canvas');
  assert.equal(await readout(p, '#big'), `query ${q('w1')} \u2192 key ${q('w1')}: hidden until you answer the question`);
  await p.keyboard.press('ArrowDown');
  assert.match(await readout(p, '#big'), new RegExp(`^query ${q('w2')} \u2192 key ${q('w1')}: \\d\\.\\d\\d$`));
  await p.keyboard.press('ArrowUp');
  assert.equal(await p.isVisible('#big .al-renorm'), false, 'no renormalisation readout for the hidden row');
  const csv = await p.$eval('#big', (el) => el.view.figure().values[0]);
  assert.deepEqual(csv, Array(40).fill(null), 'the export holds no numbers for row 0');
  await p.click('#big button:has-text("spread evenly")');
  assert.match(await p.textContent('#big .al-predict'), /Not yet\. /);
  assert.notDeepEqual(await pixel(0, 0), one, 'a first miss keeps row 0 hidden');
  await p.click('#big button:has-text("spread evenly")');
  assert.match(await p.textContent('#big .al-predict'), /Not quite: the engine gives \[1, 0, 0, /);
  assert.deepEqual(await pixel(0, 0), one, 'after the answer, row 0 shows its weight of 1');
  await p.focus('#big canvas');
  assert.equal(await readout(p, '#big'), `query ${q('w1')} \u2192 key ${q('w1')}: 1.00`);
  // The author's 40 words are past the reader's 12-word limit, but always a way back.
  await p.fill('#big .al-sentence input', 'a b c');
  await p.press('#big .al-sentence input', 'Enter');
  await p.fill('#big .al-sentence input', tokens.join(' '));
  await p.press('#big .al-sentence input', 'Enter');
  assert.equal(await p.textContent('#big .al-sentence-message'), 'Back to the original sentence.');
  assert.equal((await p.$eval('#big', (el) => el.state)).tokens.length, 40);
  assert.deepEqual(problems, []);
  await close();
});

test('small multiples keep a named corner for screen readers while the note names the axes for the eye', async () => {
  const { page: p, problems, close } = await open('lesson-2.html', { width: 390, height: 900 });
  await p.selectOption('#heads select', '8');
  await p.waitForFunction(() => document.querySelector('#heads').shadowRoot.querySelectorAll('.al-heads.al-compact [role="grid"]').length === 8);
  const corner = await p.$eval('#heads', (el) => {
    const c = el.shadowRoot.querySelector('.al-compact .al-axis-query');
    return { width: c.firstElementChild.getBoundingClientRect().width, text: c.textContent };
  });
  assert.equal(corner.text, 'query \u2193');
  assert.ok(corner.width <= 1, 'hidden from the eye in the compact grid');
  assert.equal(await p.locator('#heads').getByRole('columnheader', { name: 'query', exact: true }).count(), 8);
  await p.evaluate(AXE);
  const violations = await p.evaluate(async () => (await window.axe.run(document.querySelector('#heads'), { resultTypes: ['violations'] })).violations.map((v) => `${v.id} (${v.impact})`));
  assert.deepEqual(violations, []);
  assert.deepEqual(problems, []);
  await close();
});

/**
 * Whether each side of a sideways-scrolling box is faded: the box's edge strips as shown,
 * against the same strips with the fade switched off (different pixels: a fade is there).
 */
async function fadedSides(p, box) {
  await box.scrollIntoViewIfNeeded();
  const b = await box.boundingBox();
  const strip = 16;
  const clips = { left: { x: b.x, y: b.y, width: strip, height: b.height }, right: { x: b.x + b.width - strip, y: b.y, width: strip, height: b.height } };
  const shots = async () => ({ left: await p.screenshot({ clip: clips.left }), right: await p.screenshot({ clip: clips.right }) });
  const shown = await shots();
  await box.evaluate((el) => { el.style.animation = 'none'; });
  const plain = await shots();
  await box.evaluate((el) => { el.style.animation = ''; });
  return { left: !shown.left.equals(plain.left), right: !shown.right.equals(plain.right) };
}

test('on a 390 px phone a heatmap wider than its box fades on each side that has more to show, and only there', async () => {
  const { page: p, problems, close } = await open('lesson-4.html', { width: 390, height: 900 });
  await p.emulateMedia({ reducedMotion: 'reduce' });  // cell colours change at once, so two shots differ only by the fade
  for (let i = 0; i < 9; i++) await p.click('#kvcache button:has-text("Next token")');
  const box = p.locator('#kvcache .al-heatmap-wrap .al-scroll');
  const extent = () => box.evaluate((el) => ({ left: el.scrollLeft, more: el.scrollWidth - el.clientWidth - el.scrollLeft }));
  assert.ok((await extent()).more > 100, 'ten keys do not fit a phone');
  assert.deepEqual(await fadedSides(p, box), { left: false, right: true });
  // Scrolled as a finger or a trackpad would, to the far end.
  const b = await box.boundingBox();
  await p.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
  await p.mouse.wheel(2000, 0);
  await p.waitForFunction(() => {
    const el = document.querySelector('#kvcache').shadowRoot.querySelector('.al-heatmap-wrap .al-scroll');
    return el.scrollWidth - el.clientWidth - el.scrollLeft < 1;
  });
  assert.deepEqual(await fadedSides(p, box), { left: true, right: false });
  await box.evaluate((el) => { el.scrollLeft = 80; });
  assert.deepEqual(await fadedSides(p, box), { left: true, right: true });
  // Back at the first step the heatmap fits: no fade at all.
  await p.click('#kvcache button:has-text("Back")');
  for (let i = 0; i < 8; i++) await p.click('#kvcache button:has-text("Back")');
  assert.equal((await extent()).more, 0);
  assert.deepEqual(await fadedSides(p, box), { left: false, right: false });
  assert.deepEqual(problems, []);
  await close();
});

test('on a 390 px phone every box of every lesson that scrolls sideways has the fade, and no box that fits has it', async () => {
  for (const page of ['lesson-1.html', 'lesson-2.html', 'lesson-3.html', 'lesson-4.html', 'lesson-5.html']) {
    const { page: p, close } = await open(page, { width: 390, height: 900 });
    const boxes = await p.evaluate(() => Array.from(document.querySelectorAll('*')).filter((el) => el.shadowRoot)
      .flatMap((host) => Array.from(host.shadowRoot.querySelectorAll('.al-scroll'), (el) => ({
        where: `${host.localName}#${host.id}`, scrolls: el.scrollWidth > el.clientWidth, fades: getComputedStyle(el).maskImage !== 'none',
      }))).filter((b) => b.scrolls !== b.fades));
    assert.deepEqual(boxes, [], `${page}: a box whose fade does not match whether it scrolls`);
    await close();
  }
});

test('a heatmap keys the masked colour only while it has masked cells: lesson 1 once its causal mask is ticked, never lesson 3\'s cross-attention or lesson 2\'s heads', async () => {
  const keys = (p, id) => p.$eval(id, (el) => Array.from(el.shadowRoot.querySelectorAll('.al-legend'),
    (l) => Array.from(l.querySelectorAll('.al-legend-mask')).some((k) => k.getClientRects().length > 0)));
  const l1 = await open('lesson-1.html');
  assert.equal(await l1.page.locator('#matrix .al-masked').count(), 0);
  assert.deepEqual(await keys(l1.page, '#matrix'), [false], 'lesson 1 before the causal mask: nothing masked, no key');
  await l1.page.locator('#matrix label:has-text("causal mask")').click();
  await l1.page.waitForFunction(() => document.querySelector('#matrix').shadowRoot.querySelectorAll('.al-masked').length > 0);
  assert.deepEqual(await keys(l1.page, '#matrix'), [true], 'with the causal mask ticked the masked colour is keyed');
  await l1.close();
  const l3 = await open('lesson-3.html');
  assert.deepEqual(await keys(l3.page, '#cross'), [false], 'a cross-attention has no mask to turn on');
  assert.equal(await l3.page.locator('#cross label:has-text("causal mask")').count(), 0);
  assert.deepEqual(l3.problems, []);
  await l3.close();
  const l2 = await open('lesson-2.html');
  assert.deepEqual(await keys(l2.page, '#heads'), [false, false], 'the heads are never masked');
  assert.equal(await l2.page.locator('#heads .al-masked').count(), 0);
  // The loop's picture is the correct one; "(right)" read as a place, and on a phone it is above.
  await l2.page.waitForFunction(() => document.querySelector('#heads').shadowRoot.querySelectorAll('.al-matrix').length === 2);
  assert.deepEqual(await l2.page.$$eval('#heads .al-matrix-title', (ps) => ps.map((e) => e.textContent)), ['loop over heads (correct)', 'batched']);
  assert.deepEqual(l2.problems, []);
  await l2.close();
});
