'use strict';
// The lesson pages' own links and scripts, as a reader uses them: the formula's step links
// open the stepper at that step; the listings' copy buttons work under a strict
// Content-Security-Policy over http (Clipboard API) and from file:// where the Clipboard
// API is missing (the listing is selected instead).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, sendPolicy, settled, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { num } = require('../../web/src/ui/format.js');

const root = path.resolve(__dirname, '..', '..');

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

async function openPage(url, contextOptions, init) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(msg.text()); });
  page.on('pageerror', (err) => problems.push(err.message));
  if (init) await page.addInitScript(init);
  return { page, problems, context };
}

test('under a strict CSP, Copy puts the listing on the clipboard and says so', async () => {
  const url = `${server.url}dist/lesson-2.html`;
  const { page, problems, context } = await openPage(url, { permissions: ['clipboard-read', 'clipboard-write'] });
  await sendPolicy(page, '**/*.html', CSP.strict);
  await page.goto(url);
  const details = page.locator('details.code', { hasText: 'Masks and heads in PyTorch' });
  assert.equal(await details.locator('button.copy').first().isVisible(), false, 'folded until opened');
  await details.locator('summary').click();
  const button = details.locator('button.copy').first();
  await button.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('details[open] .copy-status').textContent !== '');
  assert.equal(await details.locator('.copy-status').first().textContent(), 'Copied.');
  const code = await details.locator('pre.listing code').first().textContent();
  assert.match(code, /scaled_dot_product_attention/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);
  assert.deepEqual(problems, []);
  await context.close();
});

test('from file:// without the Clipboard API, Copy selects the listing for Ctrl+C', async () => {
  const url = pathToFileURL(path.join(root, 'dist', 'lesson-1.html')).href;
  const { page, problems, context } = await openPage(url, {}, () => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });
  });
  await page.goto(url);
  const details = page.locator('details.code').first();
  await details.locator('summary').click();
  await details.locator('button.copy').click();
  assert.match(await details.locator('.copy-status').textContent(), /press Ctrl\+C/);
  const code = await details.locator('pre.listing code').textContent();
  assert.equal((await page.evaluate(() => window.getSelection().toString())).trimEnd(), code.trimEnd());
  assert.deepEqual(problems, []);
  await context.close();
});

test("lesson 1's step names open the stepper at that step, on a token other than the learner's exercise", async () => {
  const url = pathToFileURL(path.join(root, 'dist', 'lesson-1.html')).href;
  const { page, problems, context } = await openPage(url);
  await page.goto(url);
  const steps = ['project', 'score', 'softmax', 'sum'];
  for (const [i, name] of ['Project', 'Score', 'Scale and softmax', 'Weighted sum'].entries()) {
    await page.click(`ol.steps a:text-is("${name}")`);
    await page.waitForFunction((step) => document.querySelector('#lab').status === 'ready' && document.querySelector('#lab').state.step === step, steps[i]);
    assert.equal((await page.$eval('#lab', (el) => el.state)).token, 'time');
    assert.ok(await page.$eval('#lab', (el) => el.getBoundingClientRect().top < innerHeight), 'the stepper is in view');
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a phone, lesson 2 shows the worked example and the softmax demo each after its own paragraphs', async () => {
  // One column at 390 px: a figure comes after all the prose of its section, so a section
  // holding two widgets showed both after the second one's text, far from the first one's.
  const url = pathToFileURL(path.join(root, 'dist', 'lesson-2.html')).href;
  const { page, problems, context } = await openPage(url, { viewport: { width: 390, height: 900 } });
  await page.goto(url);
  const top = (selector) => page.locator(selector).first().evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
  const worked = await top('#worked');
  const heading = await top('h2:has-text("A softmax that never overflows")');
  const softmax = await top('#softmax');
  const prompt = await top('p:has-text("Predict with the softmax demo")');
  assert.ok(worked < heading, `the worked example (at ${worked} px) comes before the softmax section (${heading} px)`);
  assert.ok(prompt < softmax, `the softmax demo (at ${softmax} px) comes after the paragraph that asks to use it (${prompt} px)`);
  assert.ok(softmax - prompt < 900, `the softmax demo is within a screen of its question (${Math.round(softmax - prompt)} px)`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('lesson 1: the stepper asks for the row of flies and the heatmap for the row of like, each kept back until answered (flies in the heatmap too), answered wrong twice then by keyboard', async () => {
  const ex = lab.examples().timeFlies;
  const flies = Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 1, {}).weights.data);
  const like = Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 2, {}).weights.data);
  // The stepper prints three decimals: the 0.796 (arrow) and 0.178 (flies) of the row of flies.
  const fliesShown = [String(Number(flies[4].toFixed(3))), String(Number(flies[1].toFixed(3)))];
  assert.deepEqual(fliesShown, ['0.796', '0.178']);
  // Four different weights in the row of like (like and an tie), so four colours once shown.
  assert.equal(new Set(like.map((w) => w.toFixed(4))).size, 4);
  for (const width of [1280, 390]) {
    const url = pathToFileURL(path.join(root, 'dist', 'lesson-1.html')).href;
    const { page, problems, context } = await openPage(url, { viewport: { width, height: 900 } });
    await page.goto(url);
    await settled(page);
    // What a reader can read: the page's rendered text and each widget's, the heatmap's grid aside
    // (its rows are read cell by cell below).
    const readable = () => page.evaluate(() => [document.body.innerText,
      ...Array.from(document.querySelectorAll('attention-stepper, attention-heatmap'), (el) => {
        const text = el.shadowRoot.querySelector('.al-frame').innerText, grid = el.shadowRoot.querySelector('[role="grid"]');
        return grid ? text.replace(grid.innerText, '') : text;
      })].join('\n'));
    // A row as a reader sees it: each cell's text and its painted fill.
    const row = (i) => page.$$eval(`#matrix [role="gridcell"][data-row="${i}"]`, (cells) => cells.map((c) => ({ text: c.innerText.trim(), fill: getComputedStyle(c).backgroundColor })));
    const fills = async (i) => new Set((await row(i)).map((c) => c.fill)).size;
    await page.locator('#matrix').scrollIntoViewIfNeeded();
    const question = () => page.textContent('#matrix .al-predict');
    const keptFlies = async (when) => {
      // textContent: far out of view (content-visibility: auto) a cell has no innerText.
      const texts = await page.$$eval('#matrix [role="gridcell"][data-row="1"]', (cells) => cells.map((c) => c.textContent));
      assert.deepEqual(texts, Array(5).fill('?'), `${width} px, ${when}: the heatmap keeps the row of flies back`);
      assert.equal(await fills(1), 1, `${width} px, ${when}: its cells are painted alike`);
      const names = await page.$$eval('#matrix [role="gridcell"][data-row="1"]', (cells) => cells.map((c) => c.getAttribute('aria-label')));
      assert.ok(names.every((n) => /hidden until you answer the question about "flies" elsewhere on this page$/.test(n)), names[0]);
    };
    const kept = async (when) => {
      assert.ok((await row(2)).every((c) => !/\d/.test(c.text)), `${width} px, ${when}: the heatmap's row of like has no numbers`);
      assert.equal(await fills(2), 1, `${width} px, ${when}: the cells of the row of like are painted alike, so its colours tell nothing`);
      assert.ok(await fills(0) > 1, `${width} px: the other rows keep their colours`);
      assert.match(await question(), /type the 5 weights of "like"/, `${width} px, ${when}: the heatmap asks about like`);
      assert.doesNotMatch(await question(), /flies/, `${width} px, ${when}: and not again about flies`);
    };
    await kept('before any answer');
    await keptFlies('before any answer');
    for (const x of fliesShown) assert.ok(!(await readable()).includes(x), `${width} px: ${x} readable before an answer`);
    // The exercise as the page asks for it: flies, Next, five scores, then five weights, each
    // wrong twice: the first miss gets a hint and another try, the second the engine's row.
    const answer = async (text) => {
      await page.fill('#lab .al-predict input[type="text"]', text);
      await page.press('#lab .al-predict input[type="text"]', 'Enter');
    };
    await page.click('#lab button[aria-pressed] >> text="flies"');
    await page.click('#lab button:has-text("Next")');
    await answer('1, 1, 1, 1, 1');
    assert.match(await page.textContent('#lab .al-predict'), /Not yet\. Your score for "arrow" is furthest off/);
    assert.ok(!(await readable()).includes('0, 6, 0, 0, 9'), `${width} px: a first miss keeps the scores back`);
    await answer('1, 1, 1, 1, 1');
    await page.click('#lab button:has-text("Next")');
    assert.ok(!(await readable()).includes(fliesShown[0]), `${width} px: the weights wait for their own answer`);
    await answer('0.2, 0.2, 0.2, 0.2, 0.2');
    assert.ok(!(await readable()).includes(fliesShown[0]), `${width} px: a first miss keeps the weights back`);
    await keptFlies('a first miss of the weights of flies');
    await answer('0.2, 0.2, 0.2, 0.2, 0.2');
    // Answered (wrongly): the stepper now shows the engine's row, and so does the heatmap; its own question waits.
    assert.deepEqual(await page.$$eval('#lab [data-key^="weight:"]', (els) => els.map((e) => e.textContent)), flies.map((w) => String(Number(w.toFixed(3)))));
    assert.deepEqual(await page.$$eval('#matrix [role="gridcell"][data-row="1"]', (cells) => cells.map((c) => c.textContent)), flies.map((w) => w.toFixed(2)),
      `${width} px: the heatmap shows the row of flies once it is answered`);
    await kept('flies answered in the stepper');
    // By keyboard alone, from the heatmap's last control: Tab to the question, then answer it
    // (at 390 px by typing a wrong row and Enter; at 1280 px by asking to see the row, with Space).
    await page.focus('#matrix label:has-text("numbers") input');
    const focused = () => page.evaluate(() => {
      const a = document.querySelector('#matrix').shadowRoot.activeElement;
      return a ? `${a.localName}:${a.type === 'text' ? 'text' : a.textContent}` : '';
    });
    const target = width === 390 ? 'input:text' : 'button:Show the row of "like"';
    for (let tabs = 0; tabs < 5 && await focused() !== target; tabs++) await page.keyboard.press('Tab');
    assert.equal(await focused(), target, `${width} px: the question is reached with Tab`);
    if (width === 390) {
      await page.keyboard.type('0.2, 0.2, 0.2, 0.2, 0.2');
      await page.keyboard.press('Enter');
      assert.match(await question(), /Not yet\. Your weight for "time" is furthest off/);
      await kept('a first miss in the heatmap');
      await page.keyboard.press('Enter');
      assert.match(await question(), new RegExp(`Not quite: the engine gives \\[${like.map((w) => num(w, 4)).join(', ')}\\]`));
    } else {
      await page.keyboard.press('Space');
    }
    assert.deepEqual((await row(2)).map((c) => c.text), like.map((w) => w.toFixed(2)), `${width} px: the row is shown once asked for`);
    // The cells fade to their colours (a .18 s transition): read the fills once it has run.
    await page.evaluate(() => Promise.all(document.querySelector('#matrix').shadowRoot.getAnimations()
      .filter((a) => a instanceof CSSTransition).map((a) => a.finished)));
    assert.equal(await fills(2), 4, `${width} px: and coloured by weight (four distinct weights)`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test("lesson 1: the heatmap's question about like is judged with the settings the reader has chosen, the ones its answer is then shown with", async () => {
  const ex = lab.examples().timeFlies;
  const row = (opts) => Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 2, opts).weights.data);
  const atOne = row({}), atTwo = row({ temperature: 2 });
  // A typed weight is right within 0.01 (ui/row-question.js).
  assert.ok(atOne.some((w, j) => Math.abs(w - atTwo[j]) > 0.03), 'temperature 2 gives like another row');
  const url = pathToFileURL(path.join(root, 'dist', 'lesson-1.html')).href;
  const { page, problems, context } = await openPage(url);
  await page.goto(url);
  await settled(page);
  await page.locator('#matrix').scrollIntoViewIfNeeded();
  // The reader moves the temperature slider from 1 to 2 with the keyboard, then types the row they
  // worked out at temperature 1.
  await page.focus('#matrix input[type="range"]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.textContent('#matrix output'), '2');
  await page.fill('#matrix .al-predict input[type="text"]', atOne.map((w) => w.toFixed(4)).join(', '));
  await page.press('#matrix .al-predict input[type="text"]', 'Enter');
  assert.match(await page.textContent('#matrix .al-predict'), /Not yet\./);
  await page.press('#matrix .al-predict input[type="text"]', 'Enter');
  const verdict = await page.textContent('#matrix .al-predict');
  assert.match(verdict, /Not quite/, 'the temperature-1 row is not the row the heatmap now shows');
  const given = verdict.match(/the engine gives \[([^\]]+)\]/);
  assert.ok(given, verdict);
  given[1].split(',').map(Number).forEach((x, j) => assert.ok(Math.abs(x - atTwo[j]) < 1e-4, `weight ${j}: ${x} against the engine's ${atTwo[j]} at temperature 2`));
  const shown = await page.$$eval('#matrix [role="gridcell"][data-row="2"]', (cells) => cells.map((c) => c.innerText.trim()));
  assert.deepEqual(shown, atTwo.map((w) => w.toFixed(2)), 'the row shown after the answer is the one it was judged against');
  assert.deepEqual(problems, []);
  await context.close();
});
