'use strict';
// The widgets on a phone, used by touch: a 390 x 844 screen at three device pixels per CSS
// pixel, taps and finger drags only, pages opened from file:// as a reader's saved copy is.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, settled, whileDrawn, TAGS } = require('./browser.js');

const root = path.resolve(__dirname, '..', '..');
const PAGES = require('../../scripts/build-site.js').PAGES.map((p) => p.file);
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
const distUrl = (page) => pathToFileURL(path.join(root, 'dist', page)).href;
const hostUrl = (query = '') => `${pathToFileURL(path.join(__dirname, 'touch.html')).href}${query}`;

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser.close(); });

/** A phone page that records console errors and page errors, opened at `url` once its widgets settle. */
async function phone(url) {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(url);
  await settled(page);
  return { page, problems, close: () => context.close() };
}

test('on a phone a tap on a 40-token heatmap\'s canvas reads that cell out and rings it until focus leaves', async () => {
  const { page: p, problems, close } = await phone(hostUrl());
  const canvas = p.locator('#big canvas');
  const [i, j] = [11, 23];
  const box = await canvas.boundingBox();
  await canvas.tap({ position: { x: ((j + 0.5) * box.width) / 40, y: ((i + 0.5) * box.height) / 40 } });
  assert.match(await p.textContent('#big .al-readout'), new RegExp(`^query \u201cw${i + 1}\u201d \u2192 key \u201cw${j + 1}\u201d: \\d\\.\\d\\d$`));
  // The ring: white just inside the cell's left edge, black just outside it, on the canvas's own pixels.
  const pixels = () => p.$eval('#big', (el, [r, c]) => {
    const cv = el.shadowRoot.querySelector('canvas');
    const cell = cv.width / 40, ctx = cv.getContext('2d');
    const at = (x, y) => Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3));
    const y = r * cell + cell / 2;
    return { inner: at(c * cell - 1, y), outer: at(c * cell - 3, y), middle: at(c * cell + cell / 2, y), left: at((c - 1) * cell + cell / 2, y) };
  }, [i, j]);
  const ringed = await pixels();
  assert.deepEqual(ringed.inner, [255, 255, 255], 'the tapped cell has a white ring');
  assert.deepEqual(ringed.outer, [0, 0, 0], 'and a black one around it');
  await p.locator('h1').tap();
  const after = await pixels();
  assert.notDeepEqual(after.inner, [255, 255, 255], 'the ring goes when focus leaves the canvas');
  assert.deepEqual(after.middle, ringed.middle, 'the cell keeps its colour');
  // Crisp on a 3x screen: the canvas is scaled by whole blocks of device pixels, not smoothed.
  const sharp = await p.$eval('#big', (el) => getComputedStyle(el.shadowRoot.querySelector('canvas')).imageRendering);
  assert.equal(sharp, 'pixelated');
  assert.deepEqual(problems, []);
  await close();
});

test('on a phone a tap on a cell of the merged heads picture shows the engine\'s number for it, and outlines the cell', async () => {
  const { page: p, problems, close } = await phone(hostUrl());
  const heads = p.locator('#heads');
  const line = heads.locator('.al-readout');
  await line.waitFor({ timeout: 5000 });
  assert.match(await line.textContent(), /^Tap/);
  const [i, j] = [2, 5];
  const cell = heads.locator('.al-merged .al-matrix').first().locator('tr').nth(i).locator('td').nth(j);
  await cell.tap();
  const text = await line.textContent();
  const m = /^loop over heads \(correct\): \u201c(.+)\u201d, column (\d+): ([\u2212-]?\d+\.\d+)$/.exec(text);
  assert.ok(m, `the readout names the picture, token, column and number: ${text}`);
  const engine = await heads.evaluate((el, [r, c]) => ({
    word: el.shadowRoot.querySelectorAll('.al-merged .al-matrix')[0].querySelectorAll('tr')[r].querySelector('th').textContent,
    value: el.lab.multiHeadAttention({ ...el.spec(), heads: el.state.heads, method: 'loop' }).concat.toArray()[r][c],
  }), [i, j]);
  assert.equal(m[1], engine.word);
  assert.equal(Number(m[2]), j + 1);
  const shown = Number(m[3].replace('\u2212', '-'));
  assert.ok(Math.abs(shown - engine.value) <= 0.005 + 1e-9, `shown ${m[3]}, engine ${engine.value}`);
  assert.equal(await cell.evaluate((td) => td.classList.contains('al-read')), true);
  // A new number of heads redraws the pictures: the readout does not keep a stale number.
  await heads.locator('select').selectOption('4');
  await line.filter({ hasText: /^Tap/ }).waitFor({ timeout: 5000 });
  assert.equal(await heads.locator('td.al-read').count(), 0);
  assert.deepEqual(problems, []);
  await close();
});

test('on a phone a tap on the KV cache picture reads out a cached number', async () => {
  const { page: p, problems, close } = await phone(distUrl('lesson-4.html'));
  const kv = p.locator('kv-cache-stepper').first();
  await whileDrawn(p, 'kv-cache-stepper', async () => {
    await kv.locator('button:has-text("Next token")').tap();
    const cell = kv.locator('.al-kv-cache .al-matrix').nth(1).locator('tr').nth(1).locator('td').nth(3);
    await cell.tap();
    const [title, text] = [await cell.getAttribute('title'), await kv.locator('.al-kv-cache + .al-readout').textContent({ timeout: 5000 })];
    assert.match(text, new RegExp(`^V cache \\[2 \u00d7 \\d+\\]: \u201c.+\u201d, column 4: ${title.replace(/[.-]/g, '\\$&')}$`));
  });
  assert.deepEqual(problems, []);
  await close();
});

test('on a phone every checkbox is tapped through a label at least 24 px tall, on every page', async () => {
  const { page: p, problems, close } = await phone(distUrl('index.html'));
  for (const page of PAGES) {
    await p.goto(distUrl(page));
    await settled(p);
    const small = await whileDrawn(p, TAGS.join(','), () => p.evaluate(() => Array.from(document.querySelectorAll('*')).filter((el) => el.shadowRoot && 'status' in el)
      // A checkbox not shown yet (a switch that appears with an answer) is no target; it is measured once shown, by its widget's own test.
      .flatMap((el) => Array.from(el.shadowRoot.querySelectorAll('input[type="checkbox"]')).filter((box) => box.checkVisibility()).map((box) => {
        const target = box.closest('label') || box;
        const r = target.getBoundingClientRect();
        return { where: `${el.localName}#${el.id} "${target.textContent.trim().slice(0, 30)}"`, width: r.width, height: r.height };
      })).filter((t) => t.width < 24 || t.height < 24)));
    assert.deepEqual(small, [], `${page}: checkbox targets under 24 x 24 px`);
  }
  assert.deepEqual(problems, []);
  await close();
});

test('on a phone the heatmap\'s temperature slider follows a finger dragged along it, and the page does not scroll sideways', async () => {
  const { page: p, problems, close } = await phone(distUrl('lesson-1.html'));
  const slider = p.locator('#matrix input[type="range"]');
  await slider.scrollIntoViewIfNeeded();
  assert.equal(await slider.inputValue(), '2');
  // A section scrolled into view is laid out in the next frames (content-visibility: auto): the
  // finger goes down once the slider is what lies under it.
  await p.waitForFunction(() => {
    const r = document.querySelector('#matrix').shadowRoot.querySelector('input[type="range"]').getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return hit && hit.id === 'matrix';
  }, null, { timeout: 10000 });
  const box = await slider.boundingBox();
  const cdp = await p.context().newCDPSession(p);
  const y = box.y + box.height / 2;
  const at = (x) => [{ x, y, id: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(box.x + box.width / 2) });
  for (let x = box.x + box.width / 2; x <= box.x + box.width + 40; x += 8) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(x) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await p.waitForFunction(() => document.querySelector('#matrix').state.temperature === 4, null, { timeout: 5000 });
  assert.equal(await slider.inputValue(), '4');
  assert.deepEqual(await p.evaluate(() => [scrollX, document.documentElement.scrollWidth]), [0, 390]);
  assert.deepEqual(problems, []);
  await close();
});

test('on a 320 px phone the export menu opens and closes by tap, closes on a tap outside, and fits the screen with 24 px items', async () => {
  const { page: p, problems, close } = await phone(distUrl('lesson-1.html'));
  await p.setViewportSize({ width: 320, height: 700 });
  const button = p.locator('#matrix .al-export-button');
  await button.scrollIntoViewIfNeeded();
  const menu = () => p.$eval('#matrix', (el) => {
    const list = el.shadowRoot.querySelector('.al-export-list');
    const r = list.getBoundingClientRect();
    const items = Array.from(list.querySelectorAll('button'), (b) => b.getBoundingClientRect());
    return { open: !list.hidden, inside: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight, smallest: Math.min(...items.map((b) => Math.min(b.width, b.height))) };
  });
  await button.tap();
  const opened = await menu();
  assert.equal(opened.open, true);
  assert.equal(opened.inside, true, 'the open menu is inside the 320 x 700 screen');
  assert.ok(opened.smallest >= 24, `menu items are at least 24 px (smallest ${opened.smallest})`);
  await button.tap();
  assert.equal((await menu()).open, false, 'a second tap on the button closes it');
  await button.tap();
  await p.locator('h1').tap();
  assert.equal((await menu()).open, false, 'a tap outside closes it');
  assert.deepEqual(problems, []);
  await close();
});

test('turning the phone re-lays out the widgets of lessons 2 and 4 with nothing sticking out, and a desktop-only viewport keeps the page zoomable', async () => {
  const { page: p, problems, close } = await phone(distUrl('lesson-2.html'));
  const outside = () => whileDrawn(p, TAGS.join(','), () => p.evaluate(() => {
    const width = document.documentElement.clientWidth, found = [];
    if (document.documentElement.scrollWidth > width) found.push(`page ${document.documentElement.scrollWidth} > ${width}`);
    for (const el of document.querySelectorAll('*')) {
      if (!el.shadowRoot || !('status' in el)) continue;
      const frame = el.shadowRoot.querySelector('.al-frame').getBoundingClientRect();
      if (frame.right > width + 0.5) found.push(`${el.id} frame ends at ${frame.right}`);
      const out = Array.from(el.shadowRoot.querySelectorAll('.al-frame *')).find((n) => {
        const r = n.getBoundingClientRect();
        return r.width > 0 && r.right > frame.right + 0.5 && !n.closest('.al-scroll') && !n.closest('[popover]');
      });
      if (out) found.push(`${el.id}: ${out.localName}.${out.className} ends at ${out.getBoundingClientRect().right}, past the frame`);
    }
    return found;
  }));
  for (const page of ['lesson-2.html', 'lesson-4.html']) {
    await p.goto(distUrl(page));
    await settled(p);
    for (const [width, height] of [[390, 844], [844, 390], [390, 844]]) {
      await p.setViewportSize({ width, height });
      await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      assert.deepEqual(await outside(), [], `${page} at ${width} x ${height}`);
    }
  }
  await p.goto(hostUrl('?viewport=1024'));
  await settled(p);
  assert.equal(await p.evaluate(() => innerWidth), 1024, 'the host\'s width=1024 holds');
  assert.deepEqual(await outside(), []);
  const blocked = await p.evaluate(() => Array.from(document.querySelectorAll('*')).filter((el) => el.shadowRoot && 'status' in el)
    .flatMap((el) => Array.from(el.shadowRoot.querySelectorAll('*')).filter((n) => getComputedStyle(n).touchAction !== 'auto').map((n) => `${el.id} ${n.localName}`)));
  assert.deepEqual(blocked, [], 'no widget part takes pinch-zoom or panning away from the reader');
  assert.deepEqual(problems, []);
  await close();
});
