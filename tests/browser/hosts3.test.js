'use strict';
// Pages that change what a widget finds around it: keyboard shortcuts on the document (a slide
// deck, a docs site's search keys), globals a bundled site or a notebook export leaves behind
// (an AMD define, CommonJS shims, extended prototypes, elements and frames named like our
// global), a single-page app that swaps pages with history.pushState, vertical writing, a
// translator that walks open shadow roots, and panels hidden with visibility: hidden. And what
// a course author meets with their own tools: a light accent colour of their theme, a palette
// switch that repaints the page without color-scheme (MkDocs Material), an older copy of the
// script loaded first, a box of fixed height that clips (a slide, a card), and the README's
// link example. In Debian's Chromium.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { browserAndServer, openSettled, watchedPage } = require('./browser.js');
const { contrast } = require('../../web/src/ui/colors.js');
const { copiesMessage } = require('../../web/src/kit/copies.js');
const { WIDGETS } = require('../../web/src/kit/manifest.js');

const root = path.resolve(__dirname, '..', '..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

const run = browserAndServer(test, root);

const host = (name) => `${run.url()}tests/browser/hosts/${name}`;

test("keys a widget's controls use stay in the widget: the deck's arrows and the docs search keys act only outside it", async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('shortcuts.html'));
  const hostKeys = () => page.evaluate(() => ({ ...window.hostKeys }));
  const none = { slide: 0, slideOnKeyup: 0, search: 0, help: 0, escape: 0 };
  // Typing a sentence with the search keys, a space and a question mark in it.
  const sentence = page.locator('#stepper input[type="text"]');
  await sentence.fill('');
  await sentence.pressSequentially('the cat sat / on?');
  await sentence.press('Home');
  await sentence.press('ArrowRight');
  assert.equal(await sentence.inputValue(), 'the cat sat / on?');
  assert.equal(await sentence.evaluate((input) => input.selectionStart), 1, 'the caret moved in the field');
  assert.deepEqual(await hostKeys(), none, 'no slide moved, no search or help opened while typing');
  // The stepper's own arrow keys, and Space on its Next button, step once each.
  await page.locator('#stepper button:has-text("Next")').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.$eval('#stepper', (el) => el.state.stepIndex), 1);
  await page.keyboard.press(' ');
  assert.equal(await page.$eval('#stepper', (el) => el.state.stepIndex), 2, 'Space presses the button');
  // The heatmap's temperature slider, causal check box and cells.
  const temp = () => page.$eval('#heatmap', (el) => el.state.temp);
  const before = await temp();
  await page.locator('#heatmap input[type="range"]').focus();
  await page.keyboard.press('ArrowRight');
  assert.notEqual(await temp(), before, 'the slider moved');
  await page.locator('#heatmap label:has-text("causal mask") input').focus();
  await page.keyboard.press(' ');
  assert.equal(await page.$eval('#heatmap', (el) => el.state.causal), true);
  await page.locator('#heatmap [role="gridcell"]').first().focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.$eval('#heatmap', (el) => Array.from(el.shadowRoot.querySelectorAll('[role="gridcell"]')).indexOf(el.shadowRoot.activeElement)),
    6, 'the cell below (row 2 of 6 x 6) has the focus');
  // A number field of the shape tracer.
  const number = page.locator('#shapes input[type="number"]').first();
  await number.fill('');
  await number.pressSequentially('64');
  await number.press('ArrowUp');
  assert.equal(await number.inputValue(), '65');
  assert.deepEqual(await hostKeys(), none, "none of the widgets' keys reached the page's shortcuts");
  // Keys the widget does not use still do: Escape from inside it, and the page's own keys.
  await sentence.press('Escape');
  await page.locator('#own-field').focus();
  await page.keyboard.press('?');
  await page.click('.present h2');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('/');
  assert.deepEqual(await hostKeys(), { slide: 1, slideOnKeyup: 1, search: 1, help: 1, escape: 1 });
  assert.deepEqual(problems, []);
  await close();
});

test("globals the page changed first (AMD define, CommonJS shims, extended prototypes, an element and a frame named AttentionLab) leave the widgets and the API working", async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('globals.html'));
  const seen = await page.evaluate(async () => {
    const api = window.AttentionLab;
    const lab = await api.loadAttentionLab();
    const heatmap = document.getElementById('heatmap');
    return {
      statuses: Array.from(document.querySelectorAll('attention-heatmap, attention-stepper, multihead-view'), (el) => el.status),
      apiIsTheElement: api === document.getElementById('AttentionLab'),
      elementChanged: Object.keys(document.getElementById('AttentionLab')),
      shims: [Object.keys(window.module), Object.keys(window.exports), window.anonymousDefines],
      w01: lab.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1], [2]]).weights.get(0, 1),
      masked: heatmap.shadowRoot.querySelectorAll('[role="gridcell"].al-masked').length,
    };
  });
  assert.deepEqual(seen.statuses, ['ready', 'ready', 'ready']);
  assert.equal(seen.apiIsTheElement, false, 'window.AttentionLab is our API, not the page element of that id');
  assert.deepEqual(seen.elementChanged, [], "the page's element gets no property of ours");
  assert.deepEqual(seen.shims, [[], [], 0], 'nothing is exported through the shims or defined as an AMD module');
  assert.ok(Math.abs(seen.w01 - 1 / (1 + Math.exp(1 / Math.SQRT2))) < 1e-6, `the API computes (${seen.w01})`);
  assert.equal(seen.masked, 15, 'the causal heatmap masks the 15 cells above the diagonal');
  assert.deepEqual(problems, []);
  await close();
  // A frame of another origin named AttentionLab: reading a property of it would throw.
  const framed = await openSettled(run.browser(), host('named-frame.html'));
  assert.deepEqual(await framed.page.evaluate(() => [document.getElementById('heatmap').status, window.AttentionLab === window.frames[0],
    typeof window.AttentionLab.loadAttentionLab]), ['ready', false, 'function']);
  assert.deepEqual(framed.problems, []);
  await framed.close();
});

test('a single-page app swapping pages with pushState: no stale state written to the next address, nothing left listening, a moved widget keeps its link', async () => {
  const w = await openSettled(run.browser(), host('spa.html'));
  const { page, problems, warnings } = w;
  const demo = (read) => page.$eval('#demo', read);
  const settledDemo = (first) => page.waitForFunction((t) => {
    const el = document.getElementById('demo');
    return el && el.status === 'ready' && el.getAttribute('tokens').startsWith(t);
  }, first, { timeout: 20000 });
  const windowListeners = async () => {
    const cdp = await page.context().newCDPSession(page);
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'window' });
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
    await cdp.detach();
    return listeners.filter((l) => l.type === 'popstate' || l.type === 'hashchange').length;
  };
  const atStart = await windowListeners();
  // The reader ticks the mask and at once follows a link: the router pushes the next page's
  // address, then removes this page.
  await page.evaluate(() => {
    document.getElementById('demo').shadowRoot.querySelector('input[type="checkbox"]').click();
    window.route('masks', true);
  });
  await settledDemo('time');
  await page.waitForTimeout(400);
  assert.equal(new URL(page.url()).search, '?page=masks', "the next page's address gets no state of the removed widget");
  assert.equal(await demo((el) => el.state.causal), false, "the next page's widget of the same id starts from its own defaults");
  await page.click('#demo label:has-text("causal mask")');
  await page.waitForFunction(() => /demo\.causal=1/.test(location.search), null, { timeout: 3000 });
  // A widget taken out straight after a change and put back a moment later keeps that change in its link.
  await page.evaluate(async () => {
    const el = document.getElementById('demo');
    const parent = el.parentNode;
    Array.from(el.shadowRoot.querySelectorAll('label')).find((l) => /numbers/.test(l.textContent)).click();
    el.remove();
    await new Promise((resolve) => setTimeout(resolve, 50));
    parent.prepend(el);
  });
  await page.waitForFunction(() => /demo\.numbers=0/.test(location.search), null, { timeout: 3000 });
  // Back and forward through the app's history: each page's widget shows its own address's state.
  for (let i = 0; i < 2; i++) {
    await page.goBack();
    await settledDemo('the');
    assert.equal(await demo((el) => el.state.causal), false);
    await page.goForward();
    await settledDemo('time');
    assert.deepEqual(await demo((el) => [el.state.causal, el.state.numbers]), [true, false], 'the shared link state is read back');
  }
  assert.equal(await windowListeners(), atStart, 'removed widgets leave no window listener behind');
  assert.deepEqual(warnings.filter((t) => t.startsWith('attention-lab')), [], 'no false "more than one element" warning');
  assert.deepEqual(problems, []);
  await w.close();
});

test('on a page set in vertical writing the widgets stay horizontal diagrams at a readable width', async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('vertical.html'), { width: 1024, height: 768 });
  const boxes = await page.$$eval('attention-heatmap, attention-stepper', (els) => els.map((el) => {
    const frame = el.shadowRoot.querySelector('.al-frame');
    const scroller = el.shadowRoot.querySelector('.al-scroll, .al-table-wrap') || frame;
    const cell = el.shadowRoot.querySelector('[role="gridcell"]');
    const c = cell && cell.getBoundingClientRect();
    return { id: el.id, mode: getComputedStyle(frame).writingMode, width: frame.getBoundingClientRect().width,
      overflow: scroller.scrollWidth - scroller.clientWidth, cell: c && [Math.round(c.width), Math.round(c.height)] };
  }));
  for (const b of boxes) {
    assert.equal(b.mode, 'horizontal-tb', `${b.id}: rows run left to right`);
    assert.ok(b.width >= 600, `${b.id}: the widget is ${b.width} px wide, not a strip`);
    assert.ok(b.overflow <= 1, `${b.id}: its content fits (${b.overflow} px scroll)`);
  }
  const [cw, ch] = boxes[0].cell;
  assert.ok(cw >= 30 && cw <= 60 && Math.abs(cw - ch) <= 1, `heatmap cells are square (${cw} x ${ch})`);
  assert.deepEqual(problems, []);
  await close();
});

test("a page translator that walks open shadow roots translates the widgets' prose, never their tokens, numbers, formulas or code", async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('translated.html'));
  const seen = () => page.evaluate(() => {
    const root = (id) => document.getElementById(id).shadowRoot;
    const texts = (id, selector) => Array.from(root(id).querySelectorAll(selector), (n) => n.textContent);
    return {
      columns: texts('heatmap', '[role="columnheader"][title]'),
      rows: texts('heatmap', '[role="rowheader"]'),
      cells: texts('heatmap', '[role="gridcell"]'),
      tokens: texts('stepper', 'button[aria-pressed]'),
      formulas: texts('stepper', 'math'),
      code: texts('mistakes', 'pre'),
      narration: root('stepper').querySelector('.al-narration').textContent,
    };
  });
  const before = await seen();
  assert.ok(before.formulas.length > 0 && before.code.length > 0 && before.tokens.length > 0);
  assert.ok(await page.evaluate(() => window.translatePage()) > 20, 'the translator found text to translate');
  const after = await seen();
  assert.match(after.narration, /^\[/, "the stepper's narration is translated");
  for (const key of ['columns', 'rows', 'cells', 'tokens', 'formulas', 'code']) assert.deepEqual(after[key], before[key], `${key} stay as they were`);
  // The translated widget still redraws with the engine's numbers: the causal mask's first row is all on "the".
  await page.click('#heatmap label:has-text("causal mask")');
  await page.waitForFunction(() => document.getElementById('heatmap').state.causal === true);
  const row0 = await page.$$eval('#heatmap [role="gridcell"]', (cells) => cells.slice(0, 6).map((c) => [c.textContent, c.classList.contains('al-masked')]));
  assert.deepEqual(row0[0], ['1.00', false]);
  assert.ok(row0.slice(1).every(([, masked]) => masked), 'the rest of the first row is masked');
  assert.deepEqual(problems, []);
  await close();
});

test('widgets inside panels the page hides with visibility: hidden stay hidden and let clicks through, and show when the panel does', async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('hidden-panels.html'));
  const look = () => page.evaluate(() => ['in-drawer', 'on-slide-2'].map((id) => {
    const frame = document.getElementById(id).shadowRoot.querySelector('.al-frame');
    const r = frame.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + 20);
    return [getComputedStyle(frame).visibility, hit && (hit.id || hit.localName)];
  }));
  assert.deepEqual(await look(), [['hidden', 'slide-1-text'], ['hidden', 'slide-1-text']], "the hidden drawer and slide show nothing over the present slide's text");
  await page.click('#slide-1-text');
  await page.evaluate(() => document.getElementById('drawer').classList.add('open'));
  assert.deepEqual((await look())[0], ['visible', 'in-drawer'], 'the open drawer shows its widget');
  await page.click('#in-drawer label:has-text("causal mask")');
  assert.equal(await page.$eval('#in-drawer', (el) => el.state.causal), true);
  await page.evaluate(() => {
    document.getElementById('drawer').classList.remove('open');
    document.getElementById('slide-1').classList.remove('present');
    document.getElementById('slide-2').classList.add('present');
  });
  assert.deepEqual((await look())[1], ['visible', 'on-slide-2'], 'the present slide shows its widget');
  await page.click('#on-slide-2 button:has-text("Next")');
  assert.equal(await page.$eval('#on-slide-2', (el) => el.state.stepIndex), 1);
  assert.deepEqual(problems, []);
  await close();
});

/** [r, g, b] of any CSS colour text, as the browser paints it (a 1 x 1 canvas). */
function sRgb(page, colors) {
  return page.evaluate((list) => {
    const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    return list.map((c) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = '#fff';
      ctx.fillStyle = c;
      ctx.fillRect(0, 0, 1, 1);
      return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
    });
  }, colors);
}

/** The text and background colours of what the widget draws on its accent: the primary button, the pressed token, the current step. */
async function onAccent(page, id) {
  const pairs = await page.$eval(`#${id}`, (el) => Array.from(el.shadowRoot.querySelectorAll('button.al-primary, button[aria-pressed="true"], .al-steps li[aria-current="step"]'), (n) => {
    const s = getComputedStyle(n);
    return [n.textContent.trim(), s.color, s.backgroundColor];
  }));
  assert.ok(pairs.length >= 3, `#${id} draws text on its accent (${pairs.length} places)`);
  const painted = await sRgb(page, pairs.flatMap(([, fg, bg]) => [fg, bg]));
  return pairs.map(([text, fg, bg], i) => ({ text, fg, bg, ratio: contrast(painted[2 * i], painted[2 * i + 1]) }));
}

test('a light --al-accent gets dark text on it, in light and dark, and --al-accent-fg still wins', async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('accent.html'));
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const id of ['stepper', 'dark']) {
      for (const p of await onAccent(page, id)) {
        assert.ok(p.ratio >= 4.5, `${scheme} page, #${id}: "${p.text}" in ${p.fg} on ${p.bg} reads at ${p.ratio.toFixed(2)}:1 (WCAG AA asks 4.5)`);
      }
    }
    for (const p of await onAccent(page, 'own-fg')) assert.equal(p.fg, 'rgb(90, 26, 0)', `the author's --al-accent-fg colours "${p.text}"`);
  }
  // Browsers without contrast-color() use the accent's lightness (the stylesheet's other
  // @supports rule): it must choose as well.
  const rule = await page.$eval('#stepper', (el) => {
    const fallback = Array.from(el.shadowRoot.adoptedStyleSheets[0].cssRules)
      .find((r) => r instanceof CSSSupportsRule && /oklch\(from/.test(r.conditionText));
    return fallback.cssRules[0].style.getPropertyValue('--_accent-fg').trim();
  });
  const inner = /^var\(--al-accent-fg,\s*(.*)\)$/.exec(rule);
  assert.ok(inner, `the rule lets --al-accent-fg win (${rule})`);
  const accents = ['#ffd54f', '#1f5fbf', '#7fb0ff', '#e91e63', '#00c853', '#ff9800', '#000080', '#8a2be2', '#9e9e9e', '#ffffff', '#000000', '#2e7d32', '#f06292'];
  const chosen = await page.evaluate(({ list, color }) => list.map((accent) => {
    const probe = document.getElementById('probe');
    probe.style.setProperty('--_accent', accent);
    probe.style.color = color;
    return getComputedStyle(probe).color;
  }), { list: accents, color: inner[1] });
  const painted = await sRgb(page, [...chosen, ...accents]);
  accents.forEach((accent, i) => {
    const ratio = contrast(painted[i], painted[accents.length + i]);
    assert.ok(ratio >= 4.5, `the lightness rule puts ${chosen[i]} on ${accent}: ${ratio.toFixed(2)}:1`);
  });
  await page.screenshot({ path: path.join(root, 'test-results', 'screenshots', 'light-accent.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await close();
});

test('a palette switch that changes only the background (MkDocs Material) turns the widgets dark and back', async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('palette.html'));
  const looks = () => page.$$eval('attention-heatmap, mistakes-lab', (els) => els.map((el) => {
    const [r, g, b] = getComputedStyle(el.shadowRoot.querySelector('.al-frame')).backgroundColor.match(/\d+/g).map(Number);
    return (r + g + b) / 3 < 100 ? 'dark' : 'light';
  }));
  assert.deepEqual(await looks(), ['light', 'light']);
  await page.getByLabel('dark palette').check();
  await page.waitForFunction(() => ['heatmap', 'mistakes'].every((id) => document.getElementById(id).shadowRoot.querySelector('.al-frame').classList.contains('al-dark')), null, { timeout: 3000 });
  assert.deepEqual(await looks(), ['dark', 'dark']);
  await page.getByLabel('dark palette').uncheck();
  await page.waitForFunction(() => ['heatmap', 'mistakes'].every((id) => !document.getElementById(id).shadowRoot.querySelector('.al-frame').classList.contains('al-dark')), null, { timeout: 3000 });
  assert.deepEqual(await looks(), ['light', 'light']);
  assert.deepEqual(problems, []);
  await close();
});

test('an older copy loaded first keeps its elements, this copy defines the ones it lacks, and one console line names them and both versions', async () => {
  const all = Object.keys(WIDGETS);
  const open = async (older) => {
    const w = await watchedPage(run.browser());
    await w.page.goto(`${host('older-copy.html')}?older=${encodeURIComponent(older)}`);
    return w;
  };

  // An older release without a version, with two elements: the other ten come from this copy, with its engine.
  let w = await open('');
  await w.page.waitForFunction(() => ['softmax', 'kv'].every((id) => document.getElementById(id).status === 'ready'), null, { timeout: 20000 });
  assert.equal(await w.page.textContent('#heatmap'), 'drawn by the older copy', "the older copy's element stays");
  assert.deepEqual(await w.page.$$eval('#softmax, #kv', (els) => els.map((el) => el.status)), ['ready', 'ready'], 'the elements it lacks work');
  assert.match(await w.page.locator('#kv .al-frame').innerText(), /cache/i);
  const lacking = all.filter((t) => !['attention-heatmap', 'attention-stepper'].includes(t));
  const ours = w.warnings.filter((t) => t.startsWith('attention-lab'));
  assert.deepEqual(ours, [copiesMessage(version, null, lacking)]);
  assert.match(ours[0], new RegExp(`^attention-lab ${version.replace(/\./g, '\\.')}: an older attention-lab \\(one without a version number\\) was loaded first`));
  for (const tag of lacking) assert.ok(ours[0].includes(`<${tag}>`), `the line names <${tag}>`);
  assert.equal(await w.page.evaluate(() => typeof window.AttentionLab.version), 'undefined', "the page's API stays the first copy's");
  assert.deepEqual(w.problems, []);
  await w.close();

  // Another version with every element: nothing is added, and the line names both versions.
  w = await open('version=0.0.9&defines=all');
  await w.page.waitForFunction(() => document.getElementById('softmax').textContent === 'drawn by the older copy');
  await w.page.waitForTimeout(200);
  assert.deepEqual(w.warnings.filter((t) => t.startsWith('attention-lab')), [
    `attention-lab ${version}: attention-lab 0.0.9 was loaded first on this page, and its widgets are the ones used. Include one copy of attention-lab, the newest.`,
  ]);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('the script publishes its version beside the API', async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('readme-link.html'));
  assert.equal(await page.evaluate(() => window.AttentionLab.version), version);
  assert.deepEqual(problems, []);
  await close();
});

test("a widget that grows past the bottom of a fixed-height box that clips scrolls inside it; in boxes that grow or scroll it does not", async () => {
  const { page, problems, close } = await openSettled(run.browser(), host('clip-box.html'), { width: 1000, height: 900 });
  // Two Next presses: the stepper shows its score and scale tables.
  for (const id of ['fixed', 'grows', 'scrolls']) {
    for (let i = 0; i < 3; i++) await page.locator(`#${id} button.al-primary`).click();
  }
  await page.waitForTimeout(300);
  const measure = () => page.evaluate(() => ['fixed', 'grows', 'scrolls'].map((id) => {
    const el = document.getElementById(id);
    const frame = el.shadowRoot.querySelector('.al-frame');
    const box = el.parentElement;
    const r = frame.getBoundingClientRect();
    // Where the card clips: the bottom of its padding box.
    return { id, bottom: r.bottom, boxBottom: box.getBoundingClientRect().top + box.clientTop + box.clientHeight, scrolls: frame.scrollHeight > frame.clientHeight, overflow: getComputedStyle(frame).overflowY };
  }));
  const [fixed, grows, scrolls] = await measure();
  assert.ok(fixed.bottom <= fixed.boxBottom && fixed.bottom >= fixed.boxBottom - 2, `the widget ends where its card clips, using the room left there (${fixed.bottom}, card ${fixed.boxBottom})`);
  assert.equal(fixed.scrolls, true, 'and scrolls inside itself');
  assert.equal(grows.overflow, 'visible', 'a box that grows with its content leaves the widget alone');
  assert.equal(scrolls.overflow, 'visible', 'a box that scrolls leaves the widget alone');
  // The reader reaches the last row of the grown stepper by scrolling the widget (a wheel over it).
  await page.locator('#fixed').hover();
  await page.mouse.wheel(0, 2000);
  // The wheel scrolls smoothly: wait for the narration to arrive in the frame.
  await page.waitForFunction(() => {
    const root = document.getElementById('fixed').shadowRoot;
    const a = root.querySelector('.al-narration').getBoundingClientRect(), f = root.querySelector('.al-frame').getBoundingClientRect();
    return a.top >= f.top - 1 && a.bottom <= f.bottom + 1;
  }, null, { timeout: 5000 });
  assert.deepEqual(problems, []);
  await close();
});

test("the authors' guide's link example reopens the view it describes", async () => {
  const readme = fs.readFileSync(path.join(root, 'docs', 'authors.md'), 'utf8');
  const link = /`(\?causal-demo\.[^`]+)`/.exec(readme);
  assert.ok(link, 'the README gives a link example for #causal-demo');
  const params = new URLSearchParams(link[1]);
  const temperature = params.get('causal-demo.temperature') || params.get('causal-demo.temp');
  assert.ok(temperature, `the example sets a temperature (${link[1]})`);
  const { page, problems, close } = await openSettled(run.browser(), host(`readme-link.html${link[1]}`));
  const shown = await page.$eval('#causal-demo', (el) => el.shadowRoot.querySelector('output').textContent);
  assert.equal(shown, temperature, `the link's temperature is the one the widget shows (${link[1]})`);
  assert.equal(await page.$eval('#causal-demo', (el) => el.state.causal), params.get('causal-demo.causal') === '1');
  // And a change writes the temperature itself into the address.
  const slider = page.locator('#causal-demo input[type="range"]');
  await slider.focus();
  await slider.press('End');
  await page.waitForFunction(() => /causal-demo\.temperature=4(&|$)/.test(location.search), null, { timeout: 3000 });
  assert.deepEqual(problems, []);
  await close();
});
