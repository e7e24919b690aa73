'use strict';
// The lesson site as a learner uses it, in Debian's Chromium, from file:// and over http.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, openSettled, whileDrawn } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { num } = require('../../web/src/ui/format.js');

const root = path.resolve(__dirname, '..', '..');
const dist = path.join(root, 'dist');
const shots = path.join(root, 'test-results', 'screenshots');
const PAGES = require('../../scripts/build-site.js').PAGES.map((p) => p.file);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let browser, server;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  fs.mkdirSync(shots, { recursive: true });
});
test.after(async () => {
  await server.close();
  await browser.close();
});

/** A widget's public state (what its al-change event carries). */
const stateOf = (p, selector) => p.$eval(selector, (el) => el.state);

const urls = (page) => ({ 'file://': pathToFileURL(path.join(dist, page)).href, http: `${server.url}dist/${page}` });

const open = (url, opts) => openSettled(browser, url, opts);

for (const page of PAGES) {
  test(`${page} loads from file:// and http with no console error, no outside request, and no serious axe violation`, async (t) => {
    for (const [how, url] of Object.entries(urls(page))) {
      await t.test(how, async () => {
        const { page: p, problems, close } = await open(url);
        const errors = await p.$$eval('.al-error', (els) => els.map((e) => e.textContent));
        assert.deepEqual(errors, [], 'no widget shows an error');
        await p.evaluate(AXE);
        const violations = await p.evaluate(async () => {
          const r = await window.axe.run(document, { resultTypes: ['violations'] });
          return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
        });
        assert.deepEqual(violations, []);
        if (how === 'http') {
          for (const [width, scheme] of [[1280, 'light'], [390, 'light'], [1280, 'dark']]) {
            await p.setViewportSize({ width, height: 900 });
            await p.emulateMedia({ colorScheme: scheme });
            await p.screenshot({ path: path.join(shots, `${page.replace('.html', '')}-${width}${scheme === 'dark' ? '-dark' : ''}.png`), fullPage: true });
          }
        }
        assert.deepEqual(problems, []);
        await close();
      });
    }
  });
}

test('the stepper steps with the arrow keys, changing the step and the narration', async () => {
  const { page: p, problems, close } = await open(urls('lesson-1.html').http);
  assert.equal((await stateOf(p, '#lab')).step, 'project');
  await p.click('#lab button[aria-pressed] >> text=flies');
  const before = await p.textContent('#lab .al-narration');
  await p.keyboard.press('ArrowRight');
  assert.equal((await stateOf(p, '#lab')).step, 'score');
  // The row of "flies" is the reader's to compute first (lesson 1): skip the questions here.
  assert.match(await p.textContent('#lab .al-narration'), /^Your turn: work out the scores of "flies"/);
  await p.click('#lab button:has-text("Show me without guessing")');
  const afterScore = await p.textContent('#lab .al-narration');
  assert.notEqual(afterScore, before);
  assert.match(afterScore, /arrow 9/);
  await p.keyboard.press('ArrowRight');
  assert.equal((await stateOf(p, '#lab')).step, 'softmax');
  await p.click('#lab button:has-text("Show me without guessing")');
  assert.match(await p.textContent('#lab .al-narration'), /"flies" now puts most of its attention on "arrow" \(0\.80\)/);
  await p.keyboard.press('ArrowLeft');
  assert.equal((await stateOf(p, '#lab')).step, 'score');
  await p.waitForFunction(() => /[?&]lab\.token=1&lab\.step=1$/.test(location.search) && location.hash === '', null, { timeout: 2000 });
  assert.deepEqual(problems, []);
  await close();
});

test('opened at a later step, the stepper says which step its question belongs to', async () => {
  const { page: p, problems, close } = await open(`${urls('lesson-1.html')['file://']}?lab.token=1&lab.step=2`);
  assert.equal((await stateOf(p, '#lab')).step, 'softmax');
  assert.match(await p.textContent('#lab .al-narration'), /^Your turn first: this step starts from step 2 \(Score\)\. Work out the scores of "flies" before the diagram shows them\.$/);
  await p.click('#lab button:has-text("Show me without guessing")');
  assert.match(await p.textContent('#lab .al-narration'), /^Your turn: work out the weights of "flies" before the diagram shows them\.$/);
  assert.deepEqual(problems, []);
  await close();
});

test('a shared link reopens the stepper on the same token and step', async () => {
  for (const link of ['?lab.token=4&lab.step=3', '#lab.token=4&lab.step=3']) {
    const { page: p, close } = await open(`${urls('lesson-1.html')['file://']}${link}`);
    assert.deepEqual(await stateOf(p, '#lab'), { token: 'arrow', tokenIndex: 4, step: 'sum', stepIndex: 3, tokens: ['time', 'flies', 'like', 'an', 'arrow'], ownSentence: false, answered: [] }, link);
    await close();
  }
});

test('turning the causal mask on makes every weight above the diagonal read 0', async () => {
  const lab = await loadAttentionLab();
  const ex = lab.examples().timeFlies;
  const { page: p, problems, close } = await open(urls('lesson-1.html')['file://']);
  const read = () => p.$$eval('#matrix [role="gridcell"]', (cells) => cells.map((c) => ({
    i: Number(c.dataset.row), j: Number(c.dataset.col), text: c.textContent, label: c.getAttribute('aria-label'), masked: c.classList.contains('al-masked'),
  })));
  // Lesson 1 keeps the row of like back (the heatmap's exercise) until the reader asks for it,
  // and the row of flies until it is committed in the stepper (here by asking to see it, twice).
  assert.deepEqual((await read()).filter((c) => c.i === 2).map((c) => c.text), ['?', '?', '?', '?', '?'], 'the row of like waits');
  assert.deepEqual((await read()).filter((c) => c.i === 1).map((c) => c.text), ['?', '?', '?', '?', '?'], 'the row of flies waits');
  await p.click('#lab button[aria-pressed] >> text="flies"');
  for (let k = 0; k < 2; k++) {
    await p.click('#lab button:has-text("Next")');
    await p.click('#lab button:has-text("Show me without guessing")');
  }
  await p.click('#matrix button:has-text("Show the row")');
  const off = await read();
  assert.equal(off[10].text, lab.attention(ex.Q, ex.K, ex.V).weights.get(2, 0).toFixed(2), 'the row of like once asked for');
  assert.ok(off.filter((c) => c.j > c.i).every((c) => !c.masked && c.text !== '0.00'), 'no cell is masked before');
  await p.click('#matrix label:has-text("causal mask")');
  const on = await read();
  assert.equal(on.length, 25);
  const want = lab.attention(ex.Q, ex.K, ex.V, { causal: true }).weights;
  for (const c of on) {
    if (c.j > c.i) {
      assert.ok(c.masked, `cell ${c.i},${c.j} is drawn as masked`);
      assert.match(c.label, /^masked: .*, weight 0$/);
    } else {
      assert.equal(c.text, want.get(c.i, c.j).toFixed(2), `cell ${c.i},${c.j} shows the engine's weight`);
    }
  }
  assert.equal(on[0].text, '1.00', 'the first token attends only to itself');
  assert.deepEqual(problems, []);
  await close();
});

test('heatmap cells are walked with the arrow keys and announced', async () => {
  const { page: p, close } = await open(urls('lesson-1.html').http);
  await p.focus('#matrix [role="gridcell"][tabindex="0"]');
  await p.keyboard.press('End');
  // In grid mode the readout is not live (a11y.test.js): the focused cell's name says the same.
  const live = () => p.textContent('#matrix .al-readout');
  const name = () => p.$eval('#matrix', (el) => el.shadowRoot.activeElement.getAttribute('aria-label'));
  assert.equal(await live(), 'query \u201ctime\u201d \u2192 key \u201carrow\u201d: 0.10');
  assert.match(await name(), /^0\.10: query time, key arrow, weight 0\.10\d\d$/);
  // The row of flies is the stepper's exercise: kept back here until it is committed there.
  await p.keyboard.press('ArrowDown');
  assert.equal(await live(), 'query \u201cflies\u201d \u2192 key \u201carrow\u201d: hidden until you answer the question about "flies" elsewhere on this page');
  assert.match(await name(), /^\?: query flies, key arrow, weight hidden until you answer the question about "flies" elsewhere on this page$/);
  // The row of like is the heatmap's exercise: the readout keeps it back too.
  await p.keyboard.press('ArrowDown');
  assert.equal(await live(), 'query \u201clike\u201d \u2192 key \u201carrow\u201d: hidden until you answer the question');
  await p.click('#matrix button:has-text("Show the row")');
  await p.focus('#matrix [role="gridcell"][data-row="2"][data-col="4"]');
  assert.equal(await live(), 'query \u201clike\u201d \u2192 key \u201carrow\u201d: 0.13');
  assert.match(await name(), /^0\.13: query like, key arrow, weight 0\.1299$/);
  // With the numbers off the cell's name leaves out the printed number; the readout still gives it.
  await p.click('#matrix label:has-text("numbers")');
  await p.focus('#matrix [role="gridcell"][data-row="2"][data-col="3"]');
  await p.keyboard.press('ArrowRight');
  assert.equal(await live(), 'query \u201clike\u201d \u2192 key \u201carrow\u201d: 0.13');
  assert.match(await name(), /^query like, key arrow, weight 0\.1299$/);
  await close();
});

test("the worked example's numbers on the page equal the engine's, before and after practice", async () => {
  const lab = await loadAttentionLab();
  const ex = lab.examples().worked;
  const { page: p, problems, close } = await open(urls('lesson-2.html').http);
  const table = () => p.$$eval('#worked tbody tr', (rows) => Object.fromEntries(rows.map((r) => [r.querySelector('th').textContent, Array.from(r.querySelectorAll('td'), (td) => td.textContent)])));
  assert.match(await p.textContent('#worked .al-output-line'), /answer the question/, 'the output waits for a prediction');
  await p.click('#worked button:has-text("mostly v\u2081")');
  assert.match(await p.textContent('#worked .al-predict'), /Right/);
  const check = async (d) => {
    const t = await table();
    assert.deepEqual(t['score q\u00b7k'], [num(d.scores.get(0), 4), num(d.scores.get(1), 4)]);
    assert.deepEqual(t[`scaled \u00d7 ${num(d.scale, 4)}`], [num(d.scaled.get(0), 4), num(d.scaled.get(1), 4)]);
    assert.deepEqual(t.exp, [num(d.expRaw.get(0), 4), num(d.expRaw.get(1), 4)]);
    assert.deepEqual(t['sum of exps'], [num(d.sumRaw, 4), '']);
    assert.deepEqual(t.weight, [num(d.weights.get(0), 4), num(d.weights.get(1), 4)]);
    assert.equal(await p.textContent('#worked .al-output'), `[${Array.from(d.output.data, (x) => num(x, 4)).join(', ')}]`);
  };
  const d0 = lab.explainRow(ex.Q, ex.K, ex.V, 0);
  await check(d0);
  assert.deepEqual((await table()).weight, ['0.6698', '0.3302']);
  // Practice: a new query hides the results until the learner predicts w1.
  await p.fill('#worked input[aria-label="query component 2"]', '1');
  await p.click('#worked button:has-text("Try this query")');
  assert.deepEqual((await table()).weight, ['? (shown once you answer)', '? (shown once you answer)']);
  await p.fill('#worked .al-predict input[type="text"]', '0.5');
  await p.click('#worked button:has-text("Check")');
  await check(lab.explainRow([[1, 1]], ex.K, ex.V, 0));
  assert.deepEqual(problems, []);
  await close();
});

test('bad author data shows a readable message inside the widget and the rest of the page works', async () => {
  for (const url of [pathToFileURL(path.join(root, 'tests', 'browser', 'bad-data.html')).href, `${server.url}tests/browser/bad-data.html`]) {
    const { page: p, problems, close } = await open(url);
    const message = (id) => p.textContent(`#${id} .al-error-message`);
    assert.match(await message('bad-json'), /^<attention-heatmap>: the JSON inside <script type="application\/json"> could not be read/);
    assert.equal(await message('bad-rows'), '<attention-heatmap>: tokens has 2 words but Q has 3 rows; expected one row per token');
    assert.equal(await message('bad-shapes'), '<attention-stepper>: explainRow: K has d_k = 3 but Q has d_k = 2');
    assert.equal(await message('bad-nan'), '<attention-heatmap>: Q[1][1] is a string; expected a number');
    assert.equal(await message('bad-sentences'), '<padding-mask>: sentences must be an array of 1 to 6 non-empty strings');
    assert.equal(await p.$eval('#good', (el) => el.status), 'ready');
    assert.equal(await p.locator('#good [role="gridcell"]').count(), 9);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('the softmax demo waits for a prediction, then shows the engine softmax and the naive overflow', async () => {
  const lab = await loadAttentionLab();
  const { page: p, problems, close } = await open(urls('lesson-2.html')['file://']);
  assert.equal(await p.isVisible('#softmax table'), false, 'hidden before the prediction');
  await p.click('#softmax button:has-text("NaN: it overflows")');
  assert.match(await p.textContent('#softmax .al-predict'), /Not yet\./);
  assert.equal(await p.isVisible('#softmax table'), false, 'still hidden after a first miss');
  await p.click('#softmax button:has-text("NaN: it overflows")');
  assert.match(await p.textContent('#softmax .al-predict'), /Only when computed naively/);
  const rows = await p.$$eval('#softmax tbody tr', (trs) => Object.fromEntries(trs.map((r) => [r.querySelector('th').textContent, Array.from(r.querySelectorAll('td'), (td) => td.textContent)])));
  assert.deepEqual(rows['safe: softmax'], Array.from(lab.softmax([1000, 1001, 1002]).data, (x) => x.toFixed(4)));
  assert.deepEqual(rows['safe: softmax'], ['0.0900', '0.2447', '0.6652']);
  assert.deepEqual(rows['naive: e^x / sum'], ['NaN', 'NaN', 'NaN']);
  assert.deepEqual(problems, []);
  await close();
});

test('the row-0 prompt gives a hint after a first miss and reveals the engine row [1, 0, 0, 0, 0] after the second', async () => {
  const { page: p, close } = await open(urls('lesson-2.html').http);
  await p.click('#causal button:has-text("spread evenly")');
  assert.doesNotMatch(await p.textContent('#causal .al-frame'), /the engine gives/);
  await p.click('#causal button:has-text("spread evenly")');
  assert.match(await p.textContent('#causal .al-frame'), /Not quite: the engine gives \[1, 0, 0, 0, 0\]/);
  await close();
});

test('a 64-token heatmap is drawn on a canvas and its cells are walked with the arrow keys', async () => {
  const { page: p, problems, close } = await open(`${pathToFileURL(path.join(root, 'tests', 'browser', 'perf.html')).href}?n=64`);
  assert.equal(await p.locator('#perf [role="gridcell"]').count(), 0);
  await p.focus('#perf canvas');
  await p.keyboard.press('End');
  await p.keyboard.press('ArrowDown');
  assert.match(await p.textContent('#perf [aria-live="polite"].al-readout'), /^query \u201ct2\u201d \u2192 key \u201ct64\u201d: \d\.\d\d$/);
  await p.click('#perf label:has-text("causal mask")');
  await p.focus('#perf canvas');
  assert.equal(await p.textContent('#perf [aria-live="polite"].al-readout'), 'query \u201ct2\u201d \u2192 key \u201ct64\u201d: masked, weight 0');
  assert.deepEqual(problems, []);
  await close();
});

test('every widget on a page shares one engine', async () => {
  const { page: p, close } = await open(urls('lesson-2.html')['file://']);
  const same = await p.evaluate(async () => (await AttentionLab.loadAttentionLab()) === (await AttentionLab.loadAttentionLab())
    && document.querySelector('#causal').lab === document.querySelector('#heads').lab);
  assert.equal(same, true);
  await close();
});

test("widgets take their author's tokens, vectors and embeddings, and show the engine's numbers", async () => {
  const lab = await loadAttentionLab();
  const { page: p, problems, close } = await open(pathToFileURL(path.join(root, 'tests', 'browser', 'author-data.html')).href);
  assert.deepEqual(await p.$$eval('.al-error', (els) => els.map((e) => e.textContent)), []);
  const want = lab.attention([[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 1]], [[1], [2], [3]], { causal: true }).weights;
  const cells = await p.$$eval('#own-qkv [role="gridcell"]', (els) => els.map((c) => [Number(c.dataset.row), Number(c.dataset.col), c.textContent]));
  for (const [i, j, text] of cells) assert.equal(text, j > i ? '' : want.get(i, j).toFixed(2));
  assert.equal((await stateOf(p, '#own-x')).token, 'b', 'the query attribute picks the starting token');
  await p.click('#own-x button:has-text("Next")');
  const scores = lab.explainRow(lab.multiHeadAttention({ X: [[1, 0], [0, 1]], Wq: [[1, 0], [0, 1]], Wk: [[0, 1], [1, 0]], Wv: [[1, 1], [1, -1]], heads: 1 }).q.toArray()[0],
    lab.multiHeadAttention({ X: [[1, 0], [0, 1]], Wq: [[1, 0], [0, 1]], Wk: [[0, 1], [1, 0]], Wv: [[1, 1], [1, -1]], heads: 1 }).k.toArray()[0],
    [[0], [0]], 1).scores;
  const shown = await p.$$eval('#own-x .al-cell-button', (els) => els.map((e) => e.textContent));
  assert.deepEqual(shown, Array.from(scores.data, (x) => num(x, 3)));
  assert.deepEqual(await p.$$eval('#own-tokens button[aria-pressed]', (els) => els.map((e) => e.textContent)), ['the', 'quick', 'brown', 'fox']);
  assert.equal(await p.locator('#own-heads figure').count(), 4);
  assert.equal((await stateOf(p, '#own-heads')).diff, 0);
  assert.equal((await stateOf(p, '#own-sentences')).padWeight, 0);
  await p.click('#own-sentences label:has-text("forget the padding mask")');
  assert.ok((await stateOf(p, '#own-sentences')).padWeight > 0);
  assert.deepEqual(problems, []);
  await close();
});

test('on a phone the site header is one short row whose lessons menu names the current page and opens every lesson as a tap-sized row, by touch and by keyboard', async () => {
  const { page: p, problems, close } = await open(urls('index.html')['file://'], { width: 390, height: 800 });
  const header = () => p.evaluate(() => {
    const menu = document.querySelector('.site-menu'), summary = menu.querySelector('summary');
    const links = Array.from(menu.querySelectorAll('nav a'));
    const inView = (r) => r.left >= -0.5 && r.right <= innerWidth + 0.5 && r.top >= -0.5 && r.bottom <= innerHeight + 0.5;
    return {
      height: document.querySelector('.site-header').getBoundingClientRect().height, pageWidth: document.documentElement.scrollWidth,
      wideNav: getComputedStyle(document.querySelector('.site-nav')).display, open: menu.open, button: summary.textContent.replace(/\s+/g, ' ').trim(),
      buttonHeight: summary.getBoundingClientRect().height,
      links: links.map((a) => { const r = a.getBoundingClientRect(); return { text: a.textContent, height: r.height, seen: menu.open && inView(r), current: a.getAttribute('aria-current') }; }),
      focused: document.activeElement && document.activeElement.textContent,
    };
  });
  const NAMES = require('../../scripts/build-site.js').PAGES.map((page) => page.nav);
  for (const [i, page] of PAGES.entries()) {
    await p.goto(urls(page)['file://']);
    const h = await header();
    assert.ok(h.height <= 64, `${page}: the header is ${h.height} px tall at 390 px`);
    assert.equal(h.pageWidth, 390, `${page}: nothing sticks out sideways`);
    assert.equal(h.wideNav, 'none', `${page}: no sideways strip of links`);
    assert.equal(h.button, `Lessons ${NAMES[i]}`, `${page}: the menu button names the current page`);
    assert.ok(h.buttonHeight >= 44, `${page}: the button is ${h.buttonHeight} px tall`);
  }
  // On the last page: a tap opens every lesson at once, each a row at least 44 px tall, all in view.
  await p.click('.site-menu summary');
  let h = await header();
  assert.equal(h.open, true);
  assert.deepEqual(h.links.map((l) => l.text), NAMES);
  for (const l of h.links) {
    assert.ok(l.seen, `"${l.text}" is in view when the menu is open`);
    assert.ok(l.height >= 44, `"${l.text}" is ${l.height} px tall`);
  }
  assert.deepEqual(h.links.map((l) => l.current), NAMES.map((_, i) => (i === NAMES.length - 1 ? 'page' : null)));
  // A tap outside closes it; so does Escape, which gives the focus back to the button.
  await p.mouse.click(200, 600);
  assert.equal((await header()).open, false, 'a tap on the page closes the menu');
  await p.focus('.site-menu summary');
  await p.keyboard.press('Enter');
  assert.equal((await header()).open, true, 'Enter on the button opens the menu');
  await p.keyboard.press('Tab');
  assert.equal((await header()).focused, 'Start', 'Tab goes into the open menu');
  await p.keyboard.press('Escape');
  h = await header();
  assert.equal(h.open, false, 'Escape closes the menu');
  assert.equal(h.focused, `Lessons ${NAMES[NAMES.length - 1]}`, 'and the focus is back on the button');
  // Choosing a lesson goes there.
  await p.keyboard.press('Enter');
  for (let i = 0; i < 5; i++) await p.keyboard.press('Tab');
  assert.equal((await header()).focused, '4. What attention costs');
  await p.keyboard.press('Enter');
  await p.waitForURL(/lesson-4\.html$/);
  assert.equal((await header()).button, 'Lessons 4. What attention costs');
  assert.deepEqual(problems, []);
  await close();
});

test('on a phone no line of any page starts with the punctuation that follows a formula', async () => {
  const { page: p, problems, close } = await open(urls('index.html')['file://'], { width: 390, height: 900 });
  for (const page of PAGES) {
    await p.goto(urls(page)['file://']);
    // Sections far below are laid out only when near the screen: lay them all out to measure them.
    await p.addStyleTag({ content: '* { content-visibility: visible !important; }' });
    for (const width of [390, 320, 360, 414]) {
      await p.setViewportSize({ width, height: 900 });
      // Each text node of the prose that starts with punctuation, where its first character sits
      // below the last character before it: it begins a line of its own.
      const orphans = await p.evaluate(() => {
        const found = [];
        const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
        const rect = (node, from, to) => {
          const r = document.createRange();
          r.setStart(node, from);
          r.setEnd(node, to);
          return Array.from(r.getClientRects()).pop();
        };
        let prev = null;
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          if (n.parentElement.closest('pre, annotation, script, style, [hidden]')) continue;
          // Inside a formula, a character may sit lower than the one before it (a fraction).
          if (prev && !n.parentElement.closest('math') && /^[.,;:!?)\]\u2019\u201d]/.test(n.data)) {
            const first = rect(n, 0, 1), last = rect(prev, prev.length - 1, prev.length);
            if (first && last && first.top >= last.bottom - 2) found.push(`${prev.data.slice(-24)}|${n.data.slice(0, 24)}`.replace(/\s+/g, ' '));
          }
          if (n.data.trim()) prev = n;
        }
        return found;
      });
      assert.deepEqual(orphans, [], `${page} at ${width} px: punctuation wrapped onto a line of its own`);
    }
  }
  assert.deepEqual(problems, []);
  await close();
});

test('every sentence of <padding-mask> is true with and without padding; with no padding there is no mask to forget, no masked key, and no focusable control that does nothing', async () => {
  const lab = await loadAttentionLab();
  const { page: p, problems, close } = await open(pathToFileURL(path.join(root, 'tests', 'browser', 'author-data.html')).href);
  const read = (id) => p.$eval(`#${id}`, (el) => {
    const root = el.shadowRoot, box = root.querySelector('.al-controls input[type="checkbox"]');
    const reason = box.getAttribute('aria-describedby') && root.getElementById(box.getAttribute('aria-describedby'));
    return {
      text: root.querySelector('.al-frame').innerText,
      report: root.querySelector('p[aria-live]').textContent,
      values: Array.from(root.querySelectorAll('.al-cell'), (c) => Number(c.dataset.value)),
      disabled: box.disabled,
      reason: reason ? reason.textContent : null,
      maskKeys: Array.from(root.querySelectorAll('.al-legend-mask')).filter((k) => k.getClientRects().length > 0).length,
      masked: root.querySelectorAll('.al-masked').length,
    };
  });
  const forget = (id) => p.click(`#${id} label:has-text("forget the padding mask")`);
  // Padded ("a b c d", "e f"): the mask zeroes the pad columns; forgotten, the engine's row leaks.
  const padded = await read('own-sentences');
  assert.match(padded.report, /^With the mask, every weight on a padding column is exactly 0/);
  assert.equal(padded.disabled, false);
  assert.equal(padded.maskKeys, 1, 'the padded sentence\'s heatmap keys the masked colour of its pad columns; the full-length one has none to key');
  assert.ok(padded.masked > 0);
  await forget('own-sentences');
  const leaked = await read('own-sentences');
  const X = lab.randomNormal({ shape: [2, 4, 4], seed: require('../../web/src/ui/author-data.js').seedFrom('a b c d|e f') });
  const figure = lab.mistake('no-padding-mask', { Q: X, K: X, V: X, validLens: [4, 2] }).figure;
  const [b, i] = figure.row;
  assert.equal(leaked.report, `Without the mask, real tokens attend to padding: "${['a b c d', 'e f'][b].split(' ')[i]}" in sentence ${b + 1} gives ${num(figure.value * 100, 1)}% of its attention to its 2 <pad> slots.`);
  // Same lengths: no pad token. The control says why it cannot be used, the keyboard passes it
  // by, and nothing on the widget speaks of masked cells or padding weights.
  const same = await read('same-lengths');
  assert.match(same.text, /A batch of 2 sentences, all 3 tokens long, so no padding is needed\./);
  assert.equal(same.disabled, true, 'nothing to forget: the control is disabled');
  assert.equal(same.reason, 'nothing to forget: no sentence is padded');
  assert.match(same.text, /forget the padding mask\s*nothing to forget: no sentence is padded/, 'and the reason is shown beside it');
  assert.equal(same.maskKeys, 0, 'no legend keys a masked colour that no cell has');
  assert.equal(same.masked, 0);
  assert.doesNotMatch(same.text, /With the mask|Without the mask|padded to|valid length|masked/, 'no sentence about padding or masks that is not there');
  const sameX = lab.randomNormal({ shape: [2, 3, 4], seed: require('../../web/src/ui/author-data.js').seedFrom('a b c|d e f') });
  const want = Array.from(lab.attention(sameX, sameX, sameX).weights.data);
  same.values.forEach((v, j) => assert.ok(Math.abs(v - want[j]) < 1e-6, `cell ${j}: ${v} against the engine's ${want[j]}`));
  // Tab from the widget's first focusable element never lands on the disabled control.
  const stops = await p.evaluate(() => {
    const root = document.querySelector('#same-lengths').shadowRoot;
    return Array.from(root.querySelectorAll('button, input, select, [tabindex]')).filter((e) => !e.disabled && e.tabIndex >= 0).map((e) => e.type || e.getAttribute('role'));
  });
  assert.ok(!stops.includes('checkbox'), `tab stops: ${stops.join(', ')}`);
  await p.click('#same-lengths label:has-text("forget the padding mask")', { force: true });
  assert.equal((await stateOf(p, '#same-lengths')).forget, false, 'a click on the disabled control changes nothing');
  assert.equal((await stateOf(p, '#same-lengths')).padWeight, 0);
  assert.deepEqual(problems, []);
  await close();
});

test("a shared link with the worked example's query opens a practice round on it", async () => {
  const lab = await loadAttentionLab();
  const ex = lab.examples().worked;
  const { page: p, close } = await open(`${urls('lesson-3.html')['file://']}#practice.q=0,3`);
  assert.equal(await p.inputValue('#practice input[aria-label="query component 2"]'), '3');
  assert.deepEqual(await p.$$eval('#practice tbody tr.al-current td', (tds) => tds.map((td) => td.textContent)), ['? (shown once you answer)', '? (shown once you answer)']);
  const w1 = lab.explainRow([[0, 3]], ex.K, ex.V, 0).weights.get(0);
  await p.fill('#practice .al-predict input[type="text"]', w1.toFixed(3));
  await p.click('#practice button:has-text("Check")');
  assert.match(await p.textContent('#practice .al-predict:not([hidden])'), /Right/);
  assert.deepEqual(await p.$$eval('#practice tbody tr.al-current td', (tds) => tds.map((td) => td.textContent)), [num(w1, 4), num(lab.explainRow([[0, 3]], ex.K, ex.V, 0).weights.get(1), 4)]);
  await close();
});

test('at 390 px a control keeps what it says whole: the worked example\'s query vector on one line, the KV cache stepper\'s heads menu showing its whole choice', async () => {
  const l2 = await open(urls('lesson-2.html')['file://'], { width: 390, height: 844 });
  const vector = await l2.page.$eval('#worked', (el) => {
    const inputs = el.shadowRoot.querySelectorAll('input[type="number"]');
    const group = inputs[0].parentElement;
    return Array.from(group.children, (c) => Math.round(c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2));
  });
  assert.equal(vector.length, 5, 'q = [ a , b ]');
  assert.ok(Math.max(...vector) - Math.min(...vector) <= 2, `the parts of "query q = [a, b]" are on one line: centres at ${vector}`);
  assert.deepEqual(l2.problems, []);
  await l2.close();
  const l4 = await open(urls('lesson-4.html')['file://'], { width: 390, height: 844 });
  for (const value of await l4.page.$eval('#kvcache', (el) => Array.from(el.shadowRoot.querySelectorAll('select option'), (o) => o.value))) {
    await l4.page.locator('#kvcache select').selectOption(value);
    const fit = await l4.page.$eval('#kvcache', (el) => {
      const select = el.shadowRoot.querySelector('select');
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = getComputedStyle(select).font;
      const text = select.selectedOptions[0].textContent;
      // The text, the arrow (about 1.5em) and the padding must fit in the menu's box.
      return { text, need: ctx.measureText(text).width + 1.5 * parseFloat(getComputedStyle(select).fontSize), have: select.clientWidth };
    });
    assert.ok(fit.have >= fit.need, `"${fit.text}" needs about ${Math.round(fit.need)} px, the menu is ${fit.have}`);
  }
  assert.deepEqual(l4.problems, []);
  await l4.close();
});

test("lesson 1's heatmap is with the sections that use it: on one column it follows the text that introduces it and a copy sits in the temperature section; on two columns one sticky heatmap is beside every one of them", async () => {
  // The sections whose text sends the reader to the heatmap, by their headings.
  const SECTIONS = ['All tokens at once', 'Your turn again: the row of like', 'Temperature', 'Why three separate projections?'];
  const measure = (p) => p.evaluate((names) => {
    const heads = Array.from(document.querySelectorAll('main h2')).filter((h) => names.includes(h.textContent.trim()));
    const maps = Array.from(document.querySelectorAll('attention-heatmap')).filter((m) => m.checkVisibility());
    const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY }; };
    return { maps: maps.map((m) => m.id), heads: heads.map((h) => {
      const b = box(h);
      // How far the nearest heatmap is from the heading: 0 beside it, else the gap above or below.
      const gaps = maps.map(box).map((m) => (m.bottom < b.top ? b.top - m.bottom : m.top > b.bottom ? m.top - b.bottom : 0));
      return { name: h.textContent.trim(), gap: Math.round(Math.min(...gaps)) };
    }) };
  }, SECTIONS);
  const phone = await open(urls('lesson-1.html')['file://'], { width: 390, height: 844 });
  await whileDrawn(phone.page, 'main section', async () => {
    const m = await measure(phone.page);
    assert.deepEqual(m.maps, ['matrix', 'matrix-again'], 'on one column the copy is shown');
    assert.deepEqual(m.heads.map((h) => h.name), SECTIONS);
    for (const h of m.heads) assert.ok(h.gap <= 844, `at 390 px "${h.name}" is ${h.gap} px from a heatmap (at most one screen)`);
  });
  // The copy asks for the row of "like" too: the row is no answer there before the reader commits.
  assert.equal(await phone.page.locator('#matrix-again').getAttribute('predict'), 'like');
  assert.deepEqual(phone.problems, []);
  await phone.close();
  const wide = await open(urls('lesson-1.html')['file://'], { width: 1280, height: 900 });
  assert.deepEqual((await measure(wide.page)).maps, ['matrix'], 'on two columns one heatmap, no copy');
  for (const name of SECTIONS) {
    // Scrolled to each section's heading, the sticky heatmap is on screen beside it.
    const seen = await wide.page.evaluate((n) => {
      const h = Array.from(document.querySelectorAll('main h2')).find((x) => x.textContent.trim() === n);
      h.scrollIntoView({ block: 'start' });
      const r = document.querySelector('#matrix').getBoundingClientRect(), hr = h.getBoundingClientRect();
      return r.top < innerHeight && r.bottom > 0 && r.left > hr.right;
    }, name);
    assert.ok(seen, `at 1280 px the heatmap is on screen beside "${name}"`);
  }
  assert.deepEqual(wide.problems, []);
  await wide.close();
});

test("at 390 px the stepper's highlighted card is one highlighted piece, inside its box: no gaps between its cells, no edge cut off", async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page: p, problems, close } = await open(urls('lesson-1.html')['file://'], { width: 390, height: 844, colorScheme });
    await p.$eval('#lab', (el) => el.scrollIntoView());
    const card = await p.$eval('#lab', (el) => {
      const tr = el.shadowRoot.querySelector('tr.al-current');
      const box = tr.closest('.al-scroll').getBoundingClientRect(), r = tr.getBoundingClientRect();
      const bg = (n) => getComputedStyle(n).backgroundColor;
      return { token: tr.querySelector('th').textContent, display: getComputedStyle(tr).display, card: bg(tr),
        cells: Array.from(tr.cells, bg), inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5, scrolls: tr.closest('.al-scroll').scrollWidth > tr.closest('.al-scroll').clientWidth + 1 };
    });
    assert.equal(card.token, 'flies');
    assert.equal(card.display, 'block', 'stacked as a card at 390 px');
    assert.notEqual(card.card, 'rgba(0, 0, 0, 0)', `${colorScheme}: the card itself carries the highlight`);
    assert.ok(card.cells.every((c) => c === 'rgba(0, 0, 0, 0)'), `${colorScheme}: its cells are clear, so no gaps show between them: ${card.cells}`);
    assert.ok(card.inside && !card.scrolls, `${colorScheme}: the card's border is whole, inside its box`);
    assert.deepEqual(problems, []);
    await close();
  }
});
