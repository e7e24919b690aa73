'use strict';
// <model-attention model>'s knock-out (issue 29 item 3) as a learner uses it on lesson 7, with
// the keyboard only: a head pressed, the prediction asked first (a wrong answer gets a hint),
// then the guesses and the loss without the head, which must be node's model.ablate figures;
// the mode switched, a second head, the link that keeps them, a link naming no head, every head
// knocked out, the learner's own text; under a strict CSP (with Trusted Types), at 390 px.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { launch, watchedPage, settled, sendPolicy, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');

const root = path.resolve(__dirname, '..', '..');
const AXE = require('fs').readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const START = 'a part of the body of a person. a part of the body of a';

let browser, server, lab, model;
test.before(async () => {
  [browser, server, lab] = await Promise.all([launch(), startServer({ root }), loadAttentionLab()]);
  model = lab.loadModel();
});
test.after(async () => {
  model.dispose();
  await server.close();
  await browser.close();
});

const knock = (p) => p.locator('#knock');
/** What node's engine says the view should list: the guesses without the heads, and the losses as written. */
function expected(text, heads, mode = 'zero') {
  const r = model.ablate(text, { heads, mode, truncate: true });
  const q = (t) => `\u201c${t.replace(/\n/g, '\u21b5')}\u201d`;
  return {
    r,
    guesses: r.next.map((g) => `${q(g.token)}${(100 * g.probability).toFixed(1)}%`),
    before: r.baseline.next.map((g) => `${q(g.token)}${(100 * g.probability).toFixed(1)}%`),
    losses: [[r.baseline.loss, r.loss], [r.baseline.repeatedLoss, r.repeatedLoss]].map(([b, a]) => [b.toFixed(2), a.toFixed(2)]),
    changed: r.next[0].id !== r.baseline.next[0].id,
  };
}
const listed = (p, selector) => knock(p).locator(selector).evaluateAll((lis) => lis.map((li) => li.textContent));
const lossRows = (p) => knock(p).locator('.al-ko-loss tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent).slice(0, 2)));
/** Tab (forwards) until the focus is on the knock widget's control named `name` (its text or aria-label). */
async function tabTo(page, name) {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const host = document.activeElement;
      const el = host && host.id === 'knock' && host.shadowRoot.activeElement;
      return el ? (el.getAttribute('aria-label') || el.textContent || el.value || '') : '';
    });
    if (at.startsWith(name)) return;
  }
  throw new Error(`no control "${name}" reached with Tab`);
}

test('lesson 7 at 390 px under a strict CSP, keyboard only: predict, knock out, and the view lists the engine\'s guesses and loss; mean mode, a second head and the link follow', async () => {
  const { page, problems, close } = await watchedPage(browser, { width: 390, height: 844 });
  const url = `${server.url}dist/lesson-7.html`;
  // the kit adds the model's script when the element comes near, its address from the kit's policy, which the page names
  await sendPolicy(page, url, CSP.trustedTypes.replace("trusted-types 'none'", 'trusted-types attention-lab'));
  const violations = [];
  await page.exposeFunction('reportViolation', (v) => violations.push(v));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(`${e.violatedDirective} ${e.blockedURI}`)));
  await page.goto(url);
  await settled(page);
  assert.equal(await page.$eval('#knock', (el) => el.status), 'ready');
  // Opened on the knock-out, asking first: the guesses wait for the prediction.
  assert.equal(await knock(page).locator('[role="tab"][aria-selected="true"]').textContent(), 'Knock out');
  assert.equal(await knock(page).locator('.al-model-guesses').isVisible(), false);
  // From the text box, Tab to the head and press it with Space.
  await knock(page).locator('textarea.al-model-text').focus();
  await tabTo(page, 'Knock out layer 1, head 1');
  await page.keyboard.press('Space');
  const want = expected(START, [[1, 1]]);
  assert.equal(await knock(page).locator('button[aria-label="Knock out layer 1, head 1"]').getAttribute('aria-pressed'), 'true');
  assert.equal(await knock(page).locator('.al-predict p').first().textContent(),
    'Predict first: You are knocking out layer 1, head 1 (zero). With it gone, will the model\u2019s likeliest next token stay the same?');
  assert.equal(await knock(page).locator('.al-ko-result').isVisible(), false, 'no result before the prediction');
  // The wrong answer first: a hint, nothing shown.
  const [wrong, right] = want.changed ? ['Yes, it stays on top', 'No, another token takes its place'] : ['No, another token takes its place', 'Yes, it stays on top'];
  await tabTo(page, wrong);
  await page.keyboard.press('Enter');
  assert.match(await knock(page).locator('.al-predict [aria-live]').textContent(), /^Not yet\. .+ Try once more\.$/);
  assert.equal(await knock(page).locator('.al-ko-result').isVisible(), false);
  await page.keyboard.press('Shift+Tab');  // back from the wrong choice to the right one, or on from it
  const focused = await page.evaluate(() => document.activeElement.shadowRoot.activeElement.textContent);
  if (focused !== right) await tabTo(page, right);
  await page.keyboard.press('Enter');
  assert.equal(await knock(page).locator('[aria-live]', { hasText: /^Right:/ }).textContent(), `Right: the likeliest next token ${want.changed ? 'changes' : 'stays the same'}. The figures are below.`);
  // The figures are node's, and the guesses as the model is are now shown above.
  assert.deepEqual(await listed(page, '.al-ko-result .al-ko-guesses li'), want.guesses);
  assert.deepEqual(await listed(page, '.al-model-guess-box .al-model-guesses li'), want.before);
  assert.deepEqual(await lossRows(page), want.losses);
  assert.equal(await page.evaluate(() => document.activeElement.shadowRoot.activeElement.closest('.al-ko-result') !== null), true, 'the focus moves to the result, not to the page');
  // Mean mode (arrow keys in the radio group): the same heads, so no question again; it redraws with the engine's figures.
  await tabTo(page, 'zero');
  await page.keyboard.press('ArrowDown');
  const mean = expected(START, [[1, 1]], 'mean');
  await knock(page).locator('.al-ko-loss').waitFor();
  assert.deepEqual(await lossRows(page), mean.losses);
  assert.deepEqual(await listed(page, '.al-ko-result .al-ko-guesses li'), mean.guesses);
  // A second head: a new set of heads, so a new prediction first, answered right at once.
  await tabTo(page, 'Knock out layer 1, head 2');
  await page.keyboard.press('Enter');
  const two = expected(START, [[1, 1], [1, 2]], 'mean');
  assert.equal(await knock(page).locator('.al-predict p').first().textContent(),
    'Predict first: You are knocking out layer 1, heads 1 and 2 (mean). With them gone, will the model\u2019s likeliest next token stay the same?');
  assert.equal(await knock(page).locator('.al-ko-result').isVisible(), false, 'no result before the second prediction');
  await tabTo(page, two.changed ? 'No, another token takes its place' : 'Yes, it stays on top');
  await page.keyboard.press('Enter');
  assert.deepEqual(await lossRows(page), two.losses);
  assert.deepEqual(await listed(page, '.al-ko-result .al-ko-guesses li'), two.guesses);
  assert.equal(await knock(page).locator('.al-predict button').count(), 0, 'the question answered, only its verdict stays');
  assert.match(await knock(page).locator('.al-ko-result p').first().textContent(), /^With layer 1, heads 1 and 2 knocked out \(mean\)/);
  // The learner's own text: the knock-out follows it.
  const own = 'a red ball and a blue box. a red ball and a blue';
  const box = knock(page).locator('textarea.al-model-text');
  await box.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(own);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.querySelector('#knock').shadowRoot.querySelector('.al-frame[aria-busy="true"]'));
  // A new text asks again; skipped, and nothing is asked after a skip.
  assert.equal(await knock(page).locator('.al-ko-result').isVisible(), false, 'a new text: the question first');
  await knock(page).locator('.al-predict button.al-skip').press('Enter');
  assert.deepEqual(await lossRows(page), expected(own, [[1, 1], [1, 2]], 'mean').losses);
  await tabTo(page, 'Knock out layer 1, head 2');
  await page.keyboard.press('Enter');
  assert.deepEqual(await lossRows(page), expected(own, [[1, 1]], 'mean').losses, 'after a skip, no question: the figures at once');
  await page.keyboard.press('Enter');
  assert.deepEqual(await lossRows(page), expected(own, [[1, 1], [1, 2]], 'mean').losses);
  // The state and the link keep the heads and the mode.
  assert.deepEqual(await page.$eval('#knock', (el) => [el.state.knockout, el.state.knockoutMode, el.state.view]), [[[1, 1], [1, 2]], 'mean', 'knockout']);
  await page.waitForFunction(() => location.search.includes('knock.ko=1.1-1.2') && location.search.includes('knock.km=mean'));
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('knock.ko'), '1.1-1.2');
  assert.equal(link.searchParams.get('knock.km'), 'mean');
  assert.deepEqual(violations, []);
  assert.deepEqual(problems, []);
  await close();
});

test('a wrong answer, then another head: the new question starts afresh (no verdict or miss of the last one carries over)', async () => {
  const { page, problems, close } = await watchedPage(browser, { width: 1280, height: 900 });
  await page.goto(`${server.url}dist/lesson-7.html`);
  await settled(page);
  const verdict = () => knock(page).locator('.al-predict [aria-live]').textContent();
  const wrongFor = (heads) => (expected(START, heads).changed ? 'Yes, it stays on top' : 'No, another token takes its place');
  await knock(page).locator('button[aria-label="Knock out layer 1, head 3"]').click();
  await knock(page).locator(`.al-predict button:has-text("${wrongFor([[1, 3]])}")`).click();
  assert.match(await verdict(), /^Not yet\. /);
  await knock(page).locator('button[aria-label="Knock out layer 1, head 0"]').click();
  assert.match(await knock(page).locator('.al-predict p').first().textContent(), /knocking out layer 1, heads 0 and 3 \(zero\)/);
  assert.equal(await verdict(), '', 'the last question\'s verdict is gone');
  await knock(page).locator(`.al-predict button:has-text("${wrongFor([[1, 0], [1, 3]])}")`).click();
  assert.match(await verdict(), /^Not yet\. .+ Try once more\.$/, 'a first wrong answer to the new question gets its hint');
  assert.equal(await knock(page).locator('.al-ko-result').isVisible(), false);
  assert.deepEqual(problems, []);
  await close();
});

test('lesson 7 at 1280 px: every model view\'s summary table fits its column without scrolling (its nine columns are tight)', async () => {
  const { page, problems, close } = await watchedPage(browser, { width: 1280, height: 900 });
  await page.goto(`${server.url}dist/lesson-7.html`);
  await settled(page);
  const ids = await page.$$eval('model-attention', (els) => els.map((e) => e.id));
  for (const id of ids) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await page.waitForFunction((i) => document.getElementById(i).status === 'ready', id, { timeout: 60000 });
    const tab = page.locator(`#${id} [role="tab"]:has-text("Summary")`);
    if (!(await tab.count()) || !(await tab.isVisible())) continue;  // a view asking its question first shows no tabs yet
    await tab.click();
    const fit = await page.$eval(`#${id}`, (el) => {
      const t = el.shadowRoot.querySelector('.al-summary-table');
      return { width: t.scrollWidth, box: t.parentElement.clientWidth };
    });
    assert.ok(fit.width <= fit.box, `#${id}: summary table ${fit.width} px in ${fit.box} px`);
  }
  assert.deepEqual(problems, []);
  await close();
});

test('a link with heads restores them (asking first); a link naming no head says so; every head knocked out is said, not silent', async () => {
  const { page, problems, close } = await watchedPage(browser, { width: 1280, height: 900 });
  await page.goto(`${server.url}dist/lesson-7.html?knock.ko=0.0-7.2-x&knock.km=mean`);
  await settled(page);
  assert.equal(await page.$eval('#knock', (el) => el.status), 'ready');
  assert.deepEqual(await page.$eval('#knock', (el) => el.state.knockout), [[0, 0]]);
  assert.equal(await knock(page).locator('button[aria-label="Knock out layer 0, head 0"]').getAttribute('aria-pressed'), 'true');
  assert.equal(await knock(page).locator('[role="alert"].al-ko-limit').textContent(),
    'The link asks to knock out \u201c7.2\u201d, \u201cx\u201d, which names no head of this model (2 layers \u00d7 4 heads, counted from 0); they were left out.');
  await knock(page).locator('.al-predict button.al-skip').press('Enter');
  assert.deepEqual(await lossRows(page), expected(START, [[0, 0]], 'mean').losses);
  // Export, by keyboard: the JSON file holds the engine's probabilities of every listed token, as it is and knocked out.
  await knock(page).locator('.al-ko-result button', { hasText: 'Export' }).focus();
  await page.keyboard.press('Enter');
  for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowDown');
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  const file = JSON.parse(require('fs').readFileSync(await download.path(), 'utf8'));
  const { r } = expected(START, [[0, 0]], 'mean');
  const ids = [...new Set([...r.baseline.next, ...r.next].map((g) => g.id))];
  assert.deepEqual(file.colLabels, ['as it is', 'knocked out']);
  assert.deepEqual(file.rowLabels, ids.map((id) => `\u201c${model.tokenizer.pieces[id]}\u201d`));
  file.values.forEach(([before, after], k) => {
    assert.ok(Math.abs(before - r.baseline.probabilities[ids[k]]) < 1e-12 && Math.abs(after - r.probabilities[ids[k]]) < 1e-12, `${file.rowLabels[k]}: ${before}, ${after}`);
  });
  assert.deepEqual([file.settings.heads, file.settings.mode, file.settings.text], ['0.0', 'mean', START]);
  // Press every other head: the view says what such a model is, and still shows the engine's figures.
  for (let l = 0; l < 2; l++) for (let hd = 0; hd < 4; hd++) if (l || hd) await knock(page).locator(`button[aria-label="Knock out layer ${l}, head ${hd}"]`).press('Enter');
  assert.match(await knock(page).locator('[role="alert"].al-ko-limit').textContent(), /^Every head is knocked out: the model has no attention left/);
  const all = [];
  for (let l = 0; l < 2; l++) for (let hd = 0; hd < 4; hd++) all.push([l, hd]);
  assert.deepEqual(await lossRows(page), expected(START, all, 'mean').losses);
  // The knock-out with its figures and message passes axe (names, contrast, the table, the radio group).
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => (await window.axe.run(document.querySelector('#knock'), { resultTypes: ['violations'] })).violations.map((v) => `${v.id} (${v.impact})`));
  assert.deepEqual(violations, []);
  // Put every head back: the message goes, the model is as it is, the widget still works.
  await knock(page).locator('button', { hasText: 'Put every head back' }).press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.shadowRoot.activeElement.textContent), 'Put every head back', 'the focus stays where the learner was');
  assert.equal(await knock(page).locator('.al-ko-limit').textContent(), '');
  assert.match(await knock(page).locator('.al-ko-status').textContent(), /^No head is knocked out/);
  assert.equal(await knock(page).locator('.al-ko-result').isVisible(), false);
  assert.equal(await page.$eval('#knock', (el) => el.status), 'ready');
  assert.deepEqual(problems, []);
  await close();
});
