'use strict';
// More pages we did not write: no doctype (quirks mode), a CSS zoom or transform around the
// widget, Windows high contrast (forced colours), the script included twice next to a page's
// own element of the same name, and widgets cloned from a template or moved into a frame's
// document. In Debian's Chromium.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { browserAndServer, watchedPage, openSettled } = require('./browser.js');

const root = path.resolve(__dirname, '..', '..');

const run = browserAndServer(test, root);

const host = (name) => `${run.url()}tests/browser/hosts/${name}`;

test("a page without a doctype (quirks mode) still gives the widgets' tables their font size and formula lines their height", async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('quirks.html'));
  assert.equal(await page.evaluate(() => document.compatMode), 'BackCompat');
  for (const id of ['stepper', 'worked', 'shapes']) {
    const sizes = await page.$eval(`#${id}`, (el) => {
      const frame = getComputedStyle(el.shadowRoot.querySelector('.al-frame'));
      const cells = Array.from(el.shadowRoot.querySelectorAll('td, th'), (c) => getComputedStyle(c));
      return { frame: frame.fontSize, line: frame.lineHeight, cells: [...new Set(cells.map((c) => `${c.fontSize}/${c.lineHeight}`))] };
    });
    assert.equal(sizes.frame, '18px', `${id}: the page's --al-font-size reaches the widget`);
    assert.ok(sizes.cells.length > 0, `${id} has table cells`);
    // Only the widget's own size, never the browser's quirks-mode medium (16px, line height normal).
    assert.deepEqual(sizes.cells, [`18px/${sizes.line}`], `${id}: table cells ${sizes.cells.join(', ')}`);
  }
  // A line of formulas (MathML only) is as tall as a line of text, so its highlight is not cut.
  const line = await page.$eval('#stepper', (el) => ({
    formula: el.shadowRoot.querySelector('.al-formula-line').getBoundingClientRect().height,
    text: parseFloat(getComputedStyle(el.shadowRoot.querySelector('.al-formula-line')).lineHeight),
  }));
  assert.ok(line.formula >= line.text, `the formula line is ${line.formula.toFixed(1)} px tall, at least its line height ${line.text.toFixed(1)} px`);
  assert.deepEqual(problems, []);
  await close();
});

test('the export menu opens beside its button under a CSS zoom, a transform and a 62.5% root font', async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('zoomed.html'), { width: 1280, height: 900 });
  for (const id of ['zoomed', 'scaled', 'plain']) {
    await page.locator(`#${id} .al-export-button`).scrollIntoViewIfNeeded();
    await page.click(`#${id} .al-export-button`);
    const at = await page.$eval(`#${id}`, (el) => {
      const b = el.shadowRoot.querySelector('.al-export-button').getBoundingClientRect();
      const list = el.shadowRoot.querySelector('.al-export-list');
      const m = list.getBoundingClientRect();
      const hit = document.elementFromPoint(m.left + m.width / 2, m.top + 8);
      return { b: { right: b.right, bottom: b.bottom }, m: { right: m.right, top: m.top, bottom: m.bottom }, open: list.matches(':popover-open'), hit: hit && hit.id, vh: innerHeight };
    });
    assert.equal(at.open, true, `${id}: the menu is open`);
    assert.ok(Math.abs(at.m.right - at.b.right) <= 2, `${id}: the menu's right edge (${at.m.right}) meets the button's (${at.b.right})`);
    assert.ok(at.m.top >= at.b.bottom && at.m.top - at.b.bottom <= 10, `${id}: the menu (top ${at.m.top}) opens just below the button (bottom ${at.b.bottom})`);
    assert.ok(at.m.bottom <= at.vh, `${id}: the menu (bottom ${at.m.bottom}) is inside the window (${at.vh})`);
    assert.equal(at.hit, id, `${id}: the menu is what the reader sees there`);
    await page.keyboard.press('Escape');
  }
  assert.deepEqual(problems, []);
  await close();
});

test('in forced colours (high contrast) the heatmap keeps its colours and the chosen things stay marked', async () => {
  const w = await watchedPage(run.browser());
  // A dark high-contrast palette: the widget's own light-dark() colours would differ from it.
  await w.page.emulateMedia({ forcedColors: 'active', colorScheme: 'dark' });
  const { page } = w;
  await page.goto(host('forced.html'));
  await page.waitForFunction(() => ['heatmap', 'stepper', 'kv'].every((id) => document.getElementById(id).status === 'ready'), null, { timeout: 20000 });
  assert.equal(await page.evaluate(() => matchMedia('(forced-colors: active)').matches), true);
  const heat = await page.$eval('#heatmap', (el) => {
    const cells = Array.from(el.shadowRoot.querySelectorAll('.al-cell'));
    const open = cells.filter((c) => !c.classList.contains('al-masked'));
    const masked = cells.filter((c) => c.classList.contains('al-masked'));
    return {
      kept: open.filter((c) => getComputedStyle(c).backgroundColor === c.style.backgroundColor).length,
      open: open.length,
      colours: new Set(open.map((c) => getComputedStyle(c).backgroundColor)).size,
      stripes: masked.filter((c) => getComputedStyle(c).backgroundImage.includes('gradient')).length,
      masked: masked.length,
      legend: getComputedStyle(el.shadowRoot.querySelector('.al-legend-bar')).backgroundImage,
    };
  });
  assert.equal(heat.masked, 10, 'a causal 5 x 5 heatmap masks 10 cells');
  assert.equal(heat.kept, heat.open, `every open cell keeps the engine's colour (${heat.kept} of ${heat.open})`);
  assert.ok(heat.colours >= 5, `cells of different weights differ in colour (${heat.colours} colours)`);
  assert.equal(heat.stripes, heat.masked, 'masked cells keep their stripes');
  assert.match(heat.legend, /gradient/, 'the colour legend keeps its scale');
  // The stepper's chosen query token, current step, highlighted terms and row: each differs from
  // its neighbours, and its text from its own background.
  const marks = await page.$eval('#stepper', (el) => {
    const look = (n) => { const s = getComputedStyle(n); return { bg: s.backgroundColor, fg: s.color, adjust: s.forcedColorAdjust }; };
    const pressed = el.shadowRoot.querySelector('button[aria-pressed="true"]');
    const other = el.shadowRoot.querySelector('button[aria-pressed="false"]');
    const step = el.shadowRoot.querySelector('.al-steps li[aria-current="step"]');
    const nextStep = el.shadowRoot.querySelector('.al-steps li:not([aria-current])');
    const row = el.shadowRoot.querySelector('.al-table tr.al-current td');
    const plainRow = el.shadowRoot.querySelector('.al-table tr:not(.al-current) td');
    const term = el.shadowRoot.querySelector('.al-term-active');
    const probe = document.createElement('span');
    probe.style.background = 'Highlight';
    document.body.append(probe);
    const highlight = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return { highlight, pressed: look(pressed), other: look(other), step: look(step), nextStep: look(nextStep), row: look(row), plainRow: look(plainRow), term: look(term) };
  });
  for (const [name, on, off] of [['query token', 'pressed', 'other'], ['step', 'step', 'nextStep'], ['table row', 'row', 'plainRow']]) {
    assert.notEqual(marks[on].bg, marks[off].bg, `the current ${name} stands out (${marks[on].bg} vs ${marks[off].bg})`);
  }
  for (const name of ['pressed', 'step', 'row', 'term']) {
    assert.equal(marks[name].bg, marks.highlight, `${name}: drawn in the palette's Highlight colour`);
    assert.notEqual(marks[name].fg, marks[name].bg, `${name}: text and background differ`);
    // Forced text gets a Canvas-coloured backplate, which hides HighlightText on Highlight.
    assert.equal(marks[name].adjust, 'none', `${name}: no backplate behind its text`);
  }
  const kv = await page.$eval('#kv', (el) => {
    const tds = Array.from(el.shadowRoot.querySelectorAll('.al-matrix-table td'));
    const bars = Array.from(el.shadowRoot.querySelectorAll('.al-bar'), (b) => getComputedStyle(b).backgroundColor);
    return { kept: tds.filter((c) => getComputedStyle(c).backgroundColor === c.style.backgroundColor).length, tds: tds.length, bars };
  });
  assert.ok(kv.tds > 0 && kv.kept === kv.tds, `the K and V cache pictures keep their colours (${kv.kept} of ${kv.tds})`);
  assert.ok(kv.bars.length === 3 && kv.bars.every((c) => c !== 'rgba(0, 0, 0, 0)' && c !== 'rgb(255, 255, 255)'), `the cache-size bars are drawn (${kv.bars.join(', ')})`);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('the script twice, a tag the page defined first, a template clone and a move into a frame: one engine, working widgets', async () => {
  const w = await watchedPage(run.browser());
  const { warnings } = w;
  await w.page.addInitScript(() => {
    window.compiles = 0;
    const original = WebAssembly.instantiate;
    WebAssembly.instantiate = function (...args) { window.compiles += 1; return original.apply(this, args); };
  });
  const { page } = w;
  await page.goto(host('twice.html'));
  await page.waitForFunction(() => document.getElementById('first').status === 'ready', null, { timeout: 20000 });
  // The page's script uses the global API too: it gets the widgets' engine, not a second one.
  const api = await page.evaluate(async () => {
    const lab = await window.AttentionLab.loadAttentionLab();
    const w = lab.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1], [2]]).weights;
    return { compiles: window.compiles, w00: w.get(0, 0) };
  });
  assert.equal(api.compiles, 1, 'the engine is compiled once');
  assert.ok(Math.abs(api.w00 - Math.exp(1 / Math.SQRT2) / (Math.exp(1 / Math.SQRT2) + 1)) < 1e-6, `the global API works (${api.w00})`);
  assert.equal(await page.textContent('#theirs'), 'the page\u2019s own softmax-demo', "the page's own element keeps its definition");
  assert.deepEqual(warnings.filter((t) => t.startsWith('attention-lab')),
    ['attention-lab: the page already defines <softmax-demo>, so those elements are not attention-lab widgets']);
  // A widget cloned from a <template>, then moved into the frame's document, keeps its styles
  // and follows a new attribute there.
  const moved = await page.evaluate(async () => {
    const clone = document.getElementById('later').content.cloneNode(true);
    document.getElementById('clones').append(clone);
    const el = document.querySelector('#clones attention-heatmap');
    await new Promise((r) => el.addEventListener('al-ready', r, { once: true }));
    const doc = document.getElementById('frame').contentDocument;
    doc.body.append(doc.adoptNode(el));
    el.setAttribute('tokens', 'one two three four');
    await new Promise((r) => el.addEventListener('al-ready', r, { once: true }));
    const cell = el.shadowRoot.querySelector('.al-cell').getBoundingClientRect();
    return { doc: el.ownerDocument === doc, border: getComputedStyle(el.shadowRoot.querySelector('.al-frame')).borderTopWidth, cell: [cell.width, cell.height], rows: el.shadowRoot.querySelectorAll('[role="rowheader"]').length };
  });
  assert.equal(moved.doc, true);
  assert.equal(moved.rows, 4, 'the moved widget redrew with the new tokens');
  assert.equal(moved.border, '1px', "the moved widget keeps its stylesheet (the frame's border)");
  assert.ok(moved.cell[0] < 80 && Math.abs(moved.cell[0] - moved.cell[1]) < 1, `cells stay square and small (${moved.cell.join(' x ')})`);
  await page.frameLocator('#frame').locator('label:has-text("causal mask")').click();
  assert.equal(await page.frameLocator('#frame').locator('[role="gridcell"].al-masked').count(), 6, 'the moved widget takes clicks');
  assert.deepEqual(w.problems, []);
  await w.close();
});

test("a widget inside another component's shadow root keeps its link and follows the page's dark background", async () => {
  const w = await watchedPage(run.browser());
  const { warnings } = w;
  const { page } = w;
  const ready = () => page.waitForFunction(() => ['slotted', 'inner'].every((id) => {
    const el = document.getElementById(id) || document.getElementById('card').shadowRoot.getElementById(id);
    return el.status === 'ready';
  }), null, { timeout: 20000 });
  await page.goto(host('component.html'));
  await ready();
  const dark = () => page.evaluate(() => [document.getElementById('slotted'), document.getElementById('card').shadowRoot.getElementById('inner')]
    .map((el) => el.shadowRoot.querySelector('.al-frame').classList.contains('al-dark')));
  assert.deepEqual(await dark(), [true, true], 'both widgets see the dark background around the component');
  await page.click('course-card >> #inner >> label:has-text("causal mask")');
  await page.waitForFunction(() => /inner\.causal=1/.test(location.search), null, { timeout: 3000 });
  assert.deepEqual(warnings.filter((t) => t.startsWith('attention-lab')), [], 'an id unique on the page is not called a duplicate');
  // The shared link reopens the inner widget's view.
  await page.goto(page.url());
  await ready();
  assert.equal(await page.evaluate(() => document.getElementById('card').shadowRoot.getElementById('inner').state.causal), true);
  // A page widget with the same id as the one inside the component: neither writes the URL.
  await page.goto(host('component.html'));
  await ready();
  await page.evaluate(() => {
    const twin = document.createElement('attention-heatmap');
    twin.id = 'inner';
    twin.setAttribute('tokens', 'p q');
    document.body.append(twin);
  });
  await page.waitForFunction(() => document.querySelector('body > #inner').status === 'ready', null, { timeout: 20000 });
  await page.click('course-card >> #inner >> label:has-text("causal mask")');
  await page.waitForTimeout(400);
  assert.equal(new URL(page.url()).search, '', 'no state for an id two widgets share');
  assert.equal(warnings.filter((t) => /more than one element has id="inner"/.test(t)).length, 1);
  assert.deepEqual(w.problems, []);
  await w.close();
});
