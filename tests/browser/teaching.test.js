'use strict';
// The widgets as a demanding learner uses them (issue 7): honest softmax numbers, narration
// that fits the numbers, predictions whose answers stay hidden until committed, focus that
// never falls to <body>, the learner's own sentence, small multiples, the shape tracer's
// d_model / h rule, and a 390 px phone.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { launch, watchedPage, openSettled, drawnText } = require('./browser.js');
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

const open = (page, opts) => openSettled(browser, `${server.url}dist/${page}`, opts);

const stateOf = (p, selector) => p.$eval(selector, (el) => el.state);
// What the widget shows and what assistive technology reads: rendered text (innerText leaves
// out display: none, such as the print-only "answer: ..." lines).
const textOf = drawnText;
/** The focused element inside the widget: its tag and data-key, or 'BODY' when focus fell out. */
const focusIn = (p, selector) => p.evaluate((sel) => {
  const host = document.querySelector(sel);
  if (document.activeElement !== host) return document.activeElement ? document.activeElement.tagName : null;
  const el = host.shadowRoot.activeElement;
  return el ? `${el.tagName}${el.dataset.key ? `:${el.dataset.key}` : ''}:${el.textContent.trim().slice(0, 12)}` : 'HOST';
}, selector);

const tableRows = (p, selector) => p.$$eval(`${selector} tbody tr`, (trs) => Object.fromEntries(trs.map((r) => [r.querySelector('th').textContent, Array.from(r.querySelectorAll('td'), (td) => td.textContent)])));

async function typeValues(p, text) {
  await p.fill('#softmax input[type="text"]', text);
  await p.press('#softmax input[type="text"]', 'Enter');
  await p.press('#softmax input[type="text"]', 'Tab');
}

test('the softmax demo reports the float32 naive path honestly and survives bad input', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  await p.click('#softmax button:has-text("the same as softmax")');
  await typeValues(p, '100, 101, 102');
  let rows = await tableRows(p, '#softmax');
  assert.deepEqual(rows['naive: e^x (float32)'], ['\u221e', '\u221e', '\u221e']);
  assert.deepEqual(rows['naive: e^x / sum'], ['NaN', 'NaN', 'NaN']);
  let message = await p.textContent('#softmax p[data-kind]');
  assert.match(message, /^Overflow: in float32, e\^100 /);
  assert.doesNotMatch(message, /agree/);
  await typeValues(p, '-1000, -1001');
  rows = await tableRows(p, '#softmax');
  assert.deepEqual(rows['naive: sum (float32)'], ['0']);
  assert.deepEqual(rows['naive: e^x / sum'], ['NaN', 'NaN']);
  assert.deepEqual(rows['safe: e^(x \u2212 (\u22121000))'], ['1', num(Math.fround(Math.exp(-1)), 4)]);
  assert.match(await p.textContent('#softmax p[data-kind]'), /^Underflow: .*0 \u00f7 0 is NaN/);
  await typeValues(p, '0, 1, 2');
  assert.equal(await p.textContent('#softmax p[data-kind]'), 'Here both ways agree: no exponential overflowed or underflowed in float32.');
  // Inputs it cannot take: said beside the box (aria-invalid, described by the message); the last
  // good table stays, and the message says which inputs it shows.
  const safe012 = Array.from(lab.softmax([0, 1, 2]).data, (x) => x.toFixed(4));
  await typeValues(p, '1e39, 1');
  assert.match(await p.textContent('#softmax .al-field-message'), /^1e39 is beyond what a float32 can hold .* The table below still shows \[0, 1, 2\]\.$/);
  assert.equal(await p.getAttribute('#softmax input[type="text"]', 'aria-invalid'), 'true');
  assert.deepEqual((await tableRows(p, '#softmax'))['safe: softmax'], safe012, 'the last good table stays');
  assert.equal(await p.textContent('#softmax p[data-kind]'), 'Here both ways agree: no exponential overflowed or underflowed in float32.');
  await typeValues(p, 'abc');
  assert.match(await p.textContent('#softmax .al-field-message'), /"abc" is not a number/);
  assert.deepEqual((await tableRows(p, '#softmax'))['safe: softmax'], safe012);
  assert.equal((await stateOf(p, '#softmax')).values, '0, 1, 2', 'the state is the view shown');
  await typeValues(p, '1000, 1001, 1002');
  assert.equal(await p.$eval('#softmax', (el) => el.status), 'ready', 'the widget stayed alive');
  assert.equal(await p.isVisible('#softmax .al-field-message'), false, 'the message goes with good inputs');
  assert.equal(await p.getAttribute('#softmax input[type="text"]', 'aria-invalid'), null);
  assert.deepEqual((await tableRows(p, '#softmax'))['safe: softmax'], Array.from(lab.softmax([1000, 1001, 1002]).data, (x) => x.toFixed(4)));
  assert.deepEqual(problems, []);
  await close();
});

test('the stepper narrates ties, spread-out rows and the unscaled comparison from the engine numbers', async () => {
  const ex = lab.examples().timeFlies;
  const { page: p, problems, close } = await open('lesson-1.html');
  const goTo = async (token, step) => {
    await p.click(`#lab button[aria-pressed] >> text="${token}"`);
    while ((await stateOf(p, '#lab')).stepIndex > step) await p.click('#lab button:has-text("Back")');
    while ((await stateOf(p, '#lab')).stepIndex < step) await p.click('#lab button:has-text("Next")');
  };
  await goTo('flies', 2);
  // Lesson 1 asks for the row of "flies" first: skip both questions (scores, then weights).
  for (let i = 0; i < 2; i++) await p.click('#lab button:has-text("Show me without guessing")');
  const flies = Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 1, {}).weights.data);
  const fliesNone = Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 1, { scaling: 'none' }).weights.data);
  let text = await p.textContent('#lab .al-narration');
  assert.match(text, new RegExp(`most of its attention on "arrow" \\(${flies[4].toFixed(2)}\\)`));
  assert.match(text, new RegExp(`"arrow" would get ${fliesNone[4].toFixed(2)} instead of ${flies[4].toFixed(2)}`));
  assert.equal(fliesNone[4].toFixed(2), '0.95');
  // Both weight columns follow the stepper's one rule: 3 decimals, trailing zeros dropped (a
  // weight too small to show there in scientific notation).
  const three = (w) => (w !== 0 && w < 5e-4 ? w.toExponential(1) : String(Number(w.toFixed(3))));
  assert.deepEqual(await p.$$eval('#lab td.al-unscaled', (tds) => tds.map((td) => td.textContent)), fliesNone.map(three));
  assert.deepEqual(await p.$$eval('#lab [data-key^="weight:"]', (els) => els.map((e) => e.textContent)), flies.map(three));
  const d = lab.explainRow(ex.Q, ex.K, ex.V, 1, {});
  assert.equal(await p.textContent('#lab [data-sum="shifted"]'), num(d.sumShifted, 4));
  assert.equal(await p.textContent('#lab [data-sum="raw"]'), num(d.sumRaw, 4));
  assert.match(await p.textContent('#lab .al-sums'), /shifted terms e\^\(s \u2212 max\).*unshifted terms e\^s, as you would add them by hand/);
  await goTo('an', 2);
  text = await p.textContent('#lab .al-narration');
  assert.match(text, /tie at 0\.21: no single key wins/);
  await goTo('time', 3);
  text = await p.textContent('#lab .al-narration');
  assert.doesNotMatch(text, /mostly/);
  assert.match(text, /no single source: the weights are spread over time 0\.46, /);
  assert.deepEqual(problems, []);
  await close();
});

test("the stepper's help line reads as prose, in the widget's font; the working behind a number is monospace", async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  const fonts = () => p.$eval('#lab', (el) => ['.al-derivation', '.al-narration'].map((s) => getComputedStyle(el.shadowRoot.querySelector(s)).fontFamily));
  await p.click('#lab button[aria-pressed] >> text="time"');
  await p.click('#lab button:has-text("Next")');
  assert.match(await p.textContent('#lab .al-derivation'), /^Focus or hover a number/);
  const [help, prose] = await fonts();
  assert.equal(help, prose);
  assert.doesNotMatch(help, /monospace/);
  await p.hover('#lab [data-key="score:4"]');
  assert.match(await p.textContent('#lab .al-derivation'), /^q\u00b7k\(arrow\) = /);
  assert.match((await fonts())[0], /monospace/);
  await p.click('#lab button:has-text("Next")');
  assert.equal((await fonts())[0], prose, 'the next step starts again with the help line, in prose');
  assert.deepEqual(problems, []);
  await close();
});

test('a pasted 300-word text is refused with its true length: nothing is cut off first', async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  await p.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const words = Array.from({ length: 300 }, (_, i) => ['attention', 'is', 'a', 'weighted', 'average', 'of', 'values'][i % 7]);
  await p.evaluate((text) => navigator.clipboard.writeText(text), words.join(' '));
  const input = '#lab .al-sentence input';
  await p.click(input);
  await p.keyboard.press('Control+A');
  await p.keyboard.press('Control+V');
  assert.equal(await p.inputValue(input), words.join(' '), 'the box holds the whole paste');
  await p.keyboard.press('Enter');
  assert.match(await p.textContent('#lab .al-sentence-message'), /^Type 2 to 12 words separated by spaces \(your text has 300 words\)\.$/);
  assert.deepEqual((await stateOf(p, '#lab')).tokens, ['time', 'flies', 'like', 'an', 'arrow']);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: Enter on Next through the last step and arrow keys on a number keep focus in the stepper', async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  await p.focus('#lab button:has-text("Next")');
  for (let i = 0; i < 3; i++) await p.keyboard.press('Enter');
  assert.equal((await stateOf(p, '#lab')).step, 'sum');
  assert.match(await focusIn(p, '#lab'), /^BUTTON:.*Back/, 'focus moved to Back, not <body>');
  for (let i = 0; i < 3; i++) await p.keyboard.press('Enter');
  assert.equal((await stateOf(p, '#lab')).step, 'project');
  assert.match(await focusIn(p, '#lab'), /^BUTTON:.*Next/);
  await p.keyboard.press('ArrowRight');
  await p.keyboard.press('ArrowRight');
  assert.equal((await stateOf(p, '#lab')).step, 'softmax');
  // The stepper opens on "flies", whose row lesson 1 asks for first: skip the two questions.
  for (let i = 0; i < 2; i++) await p.click('#lab button:has-text("Show me without guessing")');
  await p.focus('#lab [data-key="weight:4"]');
  await p.keyboard.press('ArrowRight');
  assert.equal((await stateOf(p, '#lab')).step, 'sum');
  assert.match(await focusIn(p, '#lab'), /^BUTTON:weight:4:/, 'the same number keeps focus after the redraw');
  await p.keyboard.press('ArrowLeft');
  await p.keyboard.press('ArrowLeft');
  assert.equal((await stateOf(p, '#lab')).step, 'score');
  assert.match(await focusIn(p, '#lab'), /^BUTTON:score:4:/, 'a number in the same row takes focus');
  assert.deepEqual(problems, []);
  await close();
});

test("the learner's own sentence gets seeded vectors, a limit with a message, and a shareable link", async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  const input = '#lab .al-sentence input';
  await p.fill(input, 'one two three four five six seven eight nine ten eleven twelve thirteen');
  await p.press(input, 'Enter');
  assert.match(await p.textContent('#lab .al-sentence-message'), /2 to 12 words .*your text has 13 words\)/);
  assert.deepEqual((await stateOf(p, '#lab')).tokens, ['time', 'flies', 'like', 'an', 'arrow']);
  await p.fill(input, 'the cat sat on the mat');
  await p.click('#lab button:has-text("Use it")');
  const state = await stateOf(p, '#lab');
  assert.deepEqual(state.tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.equal(state.ownSentence, true);
  assert.equal(await p.locator('#lab button[aria-pressed]').count(), 6);
  await p.click('#lab button:has-text("Next")');
  // The seeded vectors are the ones an author's tokens get: the same as a heatmap given these tokens.
  const scores = await p.$$eval('#lab .al-cell-button', (els) => els.map((e) => e.textContent));
  await p.waitForFunction(() => /lab\.step=1/.test(location.search) && /lab\.words=the\+cat\+sat\+on\+the\+mat/.test(location.search), null, { timeout: 2000 });
  const link = await p.evaluate(() => location.href);
  const again = await watchedPage(browser);
  await again.page.goto(link);
  await again.page.waitForFunction(() => document.querySelector('#lab').status === 'ready');
  assert.deepEqual((await stateOf(again.page, '#lab')).tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.deepEqual(await again.page.$$eval('#lab .al-cell-button', (els) => els.map((e) => e.textContent)), scores);
  await again.close();
  assert.deepEqual(problems, []);
  await close();
});

test("keyboard only: lesson 1's row of \"flies\" is typed before the stepper shows it, wrong then right, with the working shown", async () => {
  const ex = lab.examples().timeFlies;
  const d = lab.explainRow(ex.Q, ex.K, ex.V, 1, {});
  const scores = Array.from(d.scores.data), weights = Array.from(d.weights.data);
  const { page: p, problems, close } = await open('lesson-1.html');
  const inStepper = async () => assert.match(await focusIn(p, '#lab'), /^(BUTTON|INPUT|OL)/, 'focus stays in the stepper');
  await p.focus('#lab .al-sentence input');
  while (!/^BUTTON:.*flies/.test(await focusIn(p, '#lab'))) { await p.keyboard.press('Tab'); await inStepper(); }
  await p.keyboard.press('Enter');
  await p.keyboard.press('ArrowRight');
  assert.equal((await stateOf(p, '#lab')).step, 'score');
  let text = await textOf(p, '#lab');
  assert.equal(await p.locator('#lab [data-key^="score:"]').count(), 0, 'no score shown before the answer');
  assert.doesNotMatch(text, /arrow 9|\b9\b/, 'the best score is not in the page');
  while (!/^INPUT/.test(await focusIn(p, '#lab'))) { await p.keyboard.press('Tab'); await inStepper(); }
  await p.keyboard.type('0, 6, 0, 0, 8');
  await p.keyboard.press('Enter');
  await inStepper();
  text = await textOf(p, '#lab');
  assert.match(text, /Not yet\. Your score for "arrow" is furthest off: multiply each entry of the query \[0, 3, 0, 0\] by the matching entry of that key \[0, 3, 0, 0\], and add the products\. Try once more\./);
  assert.equal(await p.locator('#lab [data-key^="score:"]').count(), 0, 'a first miss keeps the scores back');
  await p.keyboard.press('Enter');
  text = await textOf(p, '#lab');
  assert.match(text, new RegExp(`Not quite: the engine gives \\[${scores.map((x) => num(x, 2)).join(', ')}\\]\\. For "arrow": q\u00b7k = 0\u00d70 \\+ 3\u00d73 \\+ 0\u00d70 \\+ 0\u00d70 = 9: multiply matching entries and add them\\.`));
  assert.deepEqual(await p.$$eval('#lab [data-key^="score:"]', (els) => els.map((e) => e.textContent)), scores.map((x) => num(x, 3)), 'the scores are shown once answered');
  await p.keyboard.press('Control+A');
  await p.keyboard.type(scores.join(', '));
  await p.keyboard.press('Enter');
  assert.match(await textOf(p, '#lab'), /Right: the engine gives \[0, 6, 0, 0, 9\]/);
  // The weights: Shift+Tab back to the steps' Next, Enter, then the new question.
  while (!/^BUTTON:.*Next/.test(await focusIn(p, '#lab'))) { await p.keyboard.press('Shift+Tab'); await inStepper(); }
  await p.keyboard.press('Enter');
  assert.equal((await stateOf(p, '#lab')).step, 'softmax');
  assert.equal(await p.locator('#lab [data-key^="weight:"]').count(), 0, 'no weight shown before the answer');
  assert.ok(!(await textOf(p, '#lab')).includes(weights[4].toFixed(2)));
  while (!/^INPUT/.test(await focusIn(p, '#lab'))) { await p.keyboard.press('Tab'); await inStepper(); }
  await p.keyboard.type('0.2, 0.2, 0.2, 0.2, 0.2');
  await p.keyboard.press('Enter');
  await inStepper();
  text = await textOf(p, '#lab');
  assert.match(text, /Not yet\. Your weight for "arrow" is furthest off: scale the scores, take e to the power of each, and divide each by the sum of them all\. Try once more\./);
  assert.equal(await p.locator('#lab [data-key^="weight:"]').count(), 0, 'a first miss keeps the weights back');
  // The slip of leaving out the scaling is named as such, with the engine's working.
  await p.keyboard.press('Control+A');
  await p.keyboard.type(Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 1, { scaling: 'none' }).weights.data, (x) => x.toFixed(4)).join(', '));
  await p.keyboard.press('Enter');
  text = await textOf(p, '#lab');
  assert.match(text, /Not quite: .* These are the weights without the scaling: the scores go into the softmax only after multiplying by 0\.5\./);
  assert.match(text, new RegExp(`Not quite: the engine gives \\[${weights.map((x) => num(x, 4)).join(', ')}\\]\\..* which add up to ${num(d.sumRaw, 4).replace('.', '\\.')}\\. Each weight is its exponential divided by that sum: for "arrow", ${num(d.expRaw.get(4), 4).replace('.', '\\.')} \u00f7`));
  await p.keyboard.press('Control+A');
  await p.keyboard.type(weights.map((x) => x.toFixed(3)).join(', '));
  await p.keyboard.press('Enter');
  assert.match(await textOf(p, '#lab'), /Right: the engine gives/);
  assert.match(await textOf(p, '#lab'), /"flies" now puts most of its attention on "arrow" \(0\.80\)/);
  assert.deepEqual(problems, []);
  await close();
});

test('the worked example keeps its weights out of the page until the learner answers, and says why after a wrong answer', async () => {
  const ex = lab.examples().worked;
  const d = lab.explainRow(ex.Q, ex.K, ex.V, 0);
  const { page: p, problems, close } = await open('lesson-2.html');
  const w = [num(d.weights.get(0), 4), num(d.weights.get(1), 4)];
  let text = await textOf(p, '#worked');
  for (const x of [...w, num(d.expRaw.get(0), 4), num(d.sumRaw, 4)]) assert.ok(!text.includes(x), `${x} is not in the page before the answer`);
  await p.click('#worked button:has-text("mostly v\u2082")');
  assert.match(await p.textContent('#worked .al-predict'), /Not yet\. Work out the score of q against each key/);
  text = await textOf(p, '#worked');
  for (const x of w) assert.ok(!text.includes(x), `${x} stays hidden after a first miss`);
  await p.click('#worked button:has-text("mostly v\u2082")');
  assert.match(await p.textContent('#worked .al-predict'), /Not quite: it is v\u2081/);
  assert.match(await p.textContent('#worked .al-why'), new RegExp(`k\u2081 scores 1 against q and k\u2082 scores 0, .*v\u2081 gets weight ${w[0]} and v\u2082 still gets ${w[1]}`));
  assert.deepEqual((await tableRows(p, '#worked')).weight, w);
  // Half an edit does not start a round; an empty box is an error, not 0.
  await p.fill('#worked input[aria-label="query component 1"]', '0');
  await p.press('#worked input[aria-label="query component 1"]', 'Tab');
  assert.equal(await p.isVisible('#worked .al-predict input[type="text"]'), false, 'no practice round yet');
  assert.match(await p.textContent('#worked .al-edit-message'), /Change the other box too/);
  await p.fill('#worked input[aria-label="query component 2"]', '');
  await p.click('#worked button:has-text("Try this query")');
  assert.match(await p.textContent('#worked .al-field-message'), /Query box 2 is empty/);
  assert.equal(await p.getAttribute('#worked input[aria-label="query component 2"]', 'aria-invalid'), 'true');
  assert.equal(await p.isVisible('#worked .al-predict input[type="text"]'), false);
  // The practice query: its answer is nowhere in the page until predicted.
  await p.click('#worked button:has-text("Practice query")');
  const dp = lab.explainRow([[0, 2]], ex.K, ex.V, 0);
  assert.deepEqual((await stateOf(p, '#worked')).q, [0, 2]);
  text = await textOf(p, '#worked');
  for (const x of [num(dp.weights.get(0), 4), num(dp.weights.get(1), 4), num(dp.output.get(0), 4)]) assert.ok(!text.includes(x), `${x} hidden`);
  assert.equal(await p.$eval('#worked', (el) => el.state.weights), null);
  await p.fill('#worked .al-predict input[type="text"]', '0.5');
  await p.press('#worked .al-predict input[type="text"]', 'Enter');
  assert.match(await p.textContent('#worked .al-predict:not([hidden])'), /Not yet\. Your guess is too (high|low)\./);
  await p.press('#worked .al-predict input[type="text"]', 'Enter');
  assert.match(await p.textContent('#worked .al-predict:not([hidden])'), new RegExp(`the engine gives ${num(dp.weights.get(0), 4)}`));
  assert.deepEqual((await tableRows(p, '#worked')).weight, [num(dp.weights.get(0), 4), num(dp.weights.get(1), 4)]);
  assert.deepEqual(problems, []);
  await close();
});

test("the heatmap hides row 0 under the mask until the row-0 question is answered", async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  await p.click('#causal label:has-text("causal mask")');
  const row0 = () => p.$$eval('#causal [role="gridcell"][data-row="0"]', (cells) => cells.map((c) => [c.textContent, c.getAttribute('aria-label')]));
  for (const [text, label] of await row0()) {
    assert.equal(text, '?');
    assert.match(label, /hidden until you answer/);
  }
  await p.click('#causal button:has-text("all weight on itself")');
  assert.deepEqual((await row0()).map(([text]) => text), ['1.00', '', '', '', '']);
  assert.deepEqual(problems, []);
  await close();
});

test('multi-head: h = 8 in a compact grid, d_k kept back until answered, and the forgotten transpose pictured', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  await p.selectOption('#heads select', '8');
  assert.equal(await p.locator('#heads figure.al-head').count(), 8);
  assert.doesNotMatch(await textOf(p, '#heads'), /d\u2096 = 1\b/);
  // Scrolled to, as a reader would: far out of view the widget is not drawn and keeps its reserved height.
  await p.$eval('#heads', (el) => el.scrollIntoView());
  await p.waitForFunction(() => document.querySelector('#heads').shadowRoot.querySelector('.al-frame > *').checkVisibility({ contentVisibilityAuto: true }));
  const box = await p.$eval('#heads', (el) => el.getBoundingClientRect().height);
  assert.ok(box <= 900, `the widget at h = 8 is ${box} px tall`);
  await p.fill('#heads .al-predict input[type="text"]', '1');
  await p.press('#heads .al-predict input[type="text"]', 'Enter');
  assert.match(await p.textContent('#heads .al-frame'), /Each head: d\u2096 = 1, scale 1;/);
  assert.equal(await p.locator('#heads td.al-differs').count(), 0);
  await p.locator('#heads p:has-text("Both pictures are the same.")').waitFor();
  await p.click('#heads label:has-text("forget the head transpose")');
  const state = await stateOf(p, '#heads');
  assert.ok(state.diff > 0);
  // The merged picture is drawn in the task after the heads (MultiheadView.render).
  await p.locator('#heads td.al-differs').first().waitFor();
  const differs = await p.locator('#heads td.al-differs').count();
  assert.ok(differs > 10, `${differs} cells of the merged picture differ`);
  // The sentence under the pictures agrees with the outlines.
  assert.equal(await p.locator('#heads p:has-text("Outlined cells differ from the loop")').count(), 1);
  assert.deepEqual(problems, []);
  await close();
});

test('the shape tracer lets d_k follow d_model / h, has the 4 x 512^2 preset, and names the tensor a wrong answer belongs to', async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  await p.fill('#shapes1 label:has-text("heads h") input', '12');
  await p.press('#shapes1 label:has-text("heads h") input', 'Enter');
  let state = await stateOf(p, '#shapes1');
  assert.equal(state.dk, 64);
  const trace = lab.traceShapes({ batch: 1, n: 5, dModel: 768, heads: 12 });
  assert.equal(await p.textContent('#shapes1 code[data-id="Wq"]'), `[${trace.steps.find((s) => s.id === 'Wq').shape.join(', ')}]`);
  await p.selectOption('#shapes1 select', { label: 'base transformer: d_model 512, 8 heads' });
  assert.match(await p.textContent('#shapes1 .al-frame'), /hold 1,048,576 parameters/);
  assert.equal(lab.traceShapes({ batch: 1, n: 10, dModel: 512, heads: 8 }).parameters, 4 * 512 * 512);
  await close();
  const q = await open('lesson-3.html');
  // The row "attention output" answered first, so its shape is on the page; then the output's row mixed up with it.
  const heads = q.page.locator('#shapes3 tbody tr', { hasText: 'weights V' });
  await heads.locator('input').fill('32, 50, 128');
  await heads.locator('button:has-text("Check")').click();
  const out = q.page.locator('#shapes3 tbody tr').last();
  await out.locator('input').fill('32, 50, 128');
  await out.locator('button:has-text("Check")').click();
  assert.match(await out.textContent(), /Not yet\. .* Your answer is the shape of "attention output" \(weights V\); this row asks for "output" \(attention output W_O\)\. Try once more\./);
  await out.locator('button:has-text("Check")').click();
  assert.match(await out.textContent(), /Not quite: it is \[32, 50, 64\]\. \[batch, n, d_model\] = \[32, 50, 64\]: /);
  assert.deepEqual(q.problems, []);
  await q.close();
  assert.deepEqual(problems, []);
});

test('on a 390 px phone no page scrolls sideways, no widget text is under 11 px, and the stepper fits', async () => {
  for (const page of ['index.html', 'lesson-1.html', 'lesson-2.html', 'lesson-3.html']) {
    const { page: p, close } = await open(page, { width: 390, height: 844 });
    if (page === 'lesson-2.html') {
      await p.selectOption('#heads select', '8');
      await p.click('#scaling button:has-text("Show the results without guessing")');
      await p.waitForFunction(() => document.querySelector('#scaling').shadowRoot.querySelector('svg.al-chart'), null, { timeout: 10000 });
      // Skipped, the question goes and focus stays in the widget, on the results.
      assert.deepEqual(await p.$eval('#scaling', (el) => [el.shadowRoot.querySelector('.al-predict').hidden, document.activeElement === el, el.shadowRoot.activeElement && el.shadowRoot.activeElement.tabIndex]), [true, true, -1]);
    }
    if (page === 'lesson-1.html') {
      for (let i = 0; i < 4; i++) {
        const over = await p.$eval('#lab', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-scroll, .al-frame'))
          .filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.className));
        assert.deepEqual(over, [], `stepper step ${i + 1} scrolls sideways`);
        if (i < 3) await p.click('#lab button:has-text("Next")');
      }
    }
    const result = await p.evaluate(() => {
      const small = [];
      for (const host of document.querySelectorAll('*')) {
        if (!host.localName.includes('-') || !host.shadowRoot) continue;
        const walker = document.createTreeWalker(host.shadowRoot, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const el = n.parentElement;
          if (!n.textContent.trim() || !el || el.closest('.al-sr, [hidden]') || !el.getClientRects().length) continue;
          let size = parseFloat(getComputedStyle(el).fontSize);
          const svg = el.closest('svg');
          if (svg) size *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          if (size < 10.95) small.push(`${host.id} ${el.localName}.${el.className.baseVal ?? el.className}: ${size.toFixed(1)}px "${n.textContent.trim().slice(0, 20)}"`);
        }
      }
      return { small, scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth };
    });
    assert.equal(result.scroll, 0, `${page} scrolls sideways`);
    assert.deepEqual(result.small.slice(0, 10), [], `${page} has text under 11 px`);
    await close();
  }
});

test("the scaling experiment's axis labels never overlap: the first chart's sqrt(d_k) ticks at both widths; on the second all ten d_k at 1280 px, every other one at 390 px", async () => {
  for (const width of [1280, 390]) {
    const { page: p, problems, close } = await open('lesson-2.html', { width, height: 900 });
    await p.click('#scaling button:has-text("Show the results without guessing")');
    await p.waitForFunction(() => document.querySelector('#scaling').shadowRoot.querySelectorAll('svg.al-chart').length === 2, null, { timeout: 10000 });
    const charts = await p.$eval('#scaling', (el) => Array.from(el.shadowRoot.querySelectorAll('svg.al-chart'), (svg) => {
      const shown = (t) => t.getClientRects().length > 0;
      const box = (t) => { const r = t.getBoundingClientRect(); return { text: t.textContent, y: Number(t.getAttribute('y')), left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
      // The tick labels (the axis titles have room of their own).
      const texts = Array.from(svg.querySelectorAll(':scope > text')).filter((t) => shown(t) && !t.hasAttribute('transform') && t.getAttribute('y') < svg.viewBox.baseVal.height - 10).map(box);
      // The x-axis labels: the numbers on the lowest line (a label at the right edge ends there, the others centre).
      const lowest = Math.max(...texts.filter((t) => /^\d+$/.test(t.text)).map((t) => t.y));
      return { texts, x: texts.filter((t) => t.y === lowest && /^\d+$/.test(t.text)).map((t) => t.text) };
    }));
    for (const [k, chart] of charts.entries()) {
      // Chart 1 is drawn against sqrt(d_k) on a linear axis (from 0, as its y axis: the y axis's 0 labels the
      // corner alone); chart 2 against d_k on a log axis.
      const dks = width === 1280 ? ['1', '2', '4', '8', '16', '32', '64', '128', '256', '512'] : ['1', '4', '16', '64', '256'];
      assert.deepEqual(chart.x, k === 0 ? ['5', '10', '15', '20', '25'] : dks, `chart ${k + 1} at ${width} px`);
      const t = chart.texts;
      for (let i = 0; i < t.length; i++) {
        for (let j = i + 1; j < t.length; j++) {
          const apart = t[i].right <= t[j].left || t[j].right <= t[i].left || t[i].bottom <= t[j].top || t[j].bottom <= t[i].top;
          assert.ok(apart, `chart ${k + 1} at ${width} px: "${t[i].text}" and "${t[j].text}" overlap`);
        }
      }
    }
    assert.deepEqual(problems, []);
    await close();
  }
});

test('keyboard only: the worked example prompts are answered with Tab, Enter and typing, and focus stays in the widget', async () => {
  const ex = lab.examples().worked;
  const { page: p, problems, close } = await open('lesson-2.html');
  const focusedText = () => p.evaluate(() => {
    const host = document.activeElement;
    return host && host.shadowRoot && host.shadowRoot.activeElement ? `${host.id}:${host.shadowRoot.activeElement.textContent.trim() || host.shadowRoot.activeElement.tagName}` : host.tagName;
  });
  await p.focus('#worked input[aria-label="query component 1"]');
  for (let i = 0; i < 10 && (await focusedText()) !== 'worked:mostly v\u2081'; i++) await p.keyboard.press('Tab');
  assert.equal(await focusedText(), 'worked:mostly v\u2081');
  await p.keyboard.press('Enter');
  assert.match(await p.textContent('#worked .al-predict'), /Right: v\u2081/);
  assert.equal(await focusedText(), 'worked:mostly v\u2081', 'focus stays on the answer');
  await p.keyboard.down('Shift');
  for (let i = 0; i < 10 && (await focusedText()) !== 'worked:Practice query q = [0, 2]'; i++) await p.keyboard.press('Tab');
  await p.keyboard.up('Shift');
  await p.keyboard.press('Enter');
  assert.equal(await focusedText(), 'worked:Practice query q = [0, 2]', 'focus stays on the button that started the round');
  for (let i = 0; i < 10 && !/INPUT$/.test(await focusedText()); i++) await p.keyboard.press('Tab');
  assert.equal(await p.evaluate(() => document.activeElement.shadowRoot.activeElement.placeholder), 'e.g. 0.6', await focusedText());
  const w1 = lab.explainRow([[0, 2]], ex.K, ex.V, 0).weights.get(0);
  await p.keyboard.type(w1.toFixed(3));
  await p.keyboard.press('Enter');
  assert.match(await p.textContent('#worked .al-predict:not([hidden])'), /Right: the engine gives/);
  assert.match(await focusedText(), /^worked:INPUT$/);
  assert.deepEqual(problems, []);
  await close();
});

test('the worked example with q = [1e30, 0]: the exps overflow, the table shows the max-shift the engine uses instead, and the text says v₂ gets exactly 0', async () => {
  const ex = lab.examples().worked;
  const d = lab.explainRow([[1e30, 0]], ex.K, ex.V, 0);
  const { page: p, problems, close } = await open('lesson-2.html');
  await p.fill('#worked input[aria-label="query component 1"]', '1e30');
  await p.fill('#worked input[aria-label="query component 2"]', '0');
  await p.click('#worked button:has-text("Try this query")');
  // Before the answer, neither the weights nor the shifted exps are in the page.
  let rows = await tableRows(p, '#worked');
  assert.equal(rows['exp(s \u2212 max)'], undefined, 'the shifted row waits for the answer');
  assert.equal(await p.isVisible('#worked .al-shift-note'), false);
  await p.fill('#worked .al-predict input[type="text"]', '1');
  await p.press('#worked .al-predict input[type="text"]', 'Enter');
  rows = await tableRows(p, '#worked');
  assert.deepEqual(rows.exp, ['\u221e', '1'], 'e^s overflows float32 for the first key');
  assert.deepEqual(rows['sum of exps'], ['\u221e', '']);
  assert.deepEqual(rows['exp(s \u2212 max)'], Array.from(d.expShifted.data, (x) => num(x, 4)));
  assert.deepEqual(rows['exp(s \u2212 max)'], ['1', '0']);
  assert.deepEqual(rows['sum of those'], [num(d.sumShifted, 4), '']);
  assert.deepEqual(rows.weight, ['1', '0']);
  const note = await p.textContent('#worked .al-shift-note');
  assert.match(note, /\u221e \/ \u221e is not a number\. The engine first subtracts the row's largest scaled score/);
  const why = await p.textContent('#worked .al-why');
  assert.match(why, /v\u2082 gets exactly 0/);
  assert.doesNotMatch(why, /still gets|blends both/);
  assert.deepEqual(problems, []);
  await close();
});

test('the scaling chart shows std = sqrt(d_k) as the straight line it is (std against sqrt(d_k), linear axes) and defines "largest gradient" where it is shown', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  await p.click('#scaling button:has-text("Show the results without guessing")');
  await p.waitForFunction(() => document.querySelector('#scaling').shadowRoot.querySelectorAll('svg.al-chart').length === 2, null, { timeout: 10000 });
  const drawn = await p.$eval('#scaling', (el) => {
    const [first] = el.shadowRoot.querySelectorAll('svg.al-chart');
    const texts = Array.from(first.querySelectorAll('text'), (t) => t.textContent);
    const path = first.querySelector('path.al-curve').getAttribute('d');
    const points = Array.from(path.matchAll(/[ML]([\d.]+) ([\d.]+)/g), (m) => [Number(m[1]), Number(m[2])]);
    return { texts, points, text: el.shadowRoot.querySelector('.al-frame').innerText };
  });
  // The line std = sqrt(d_k), as drawn: one slope from the first point to the last (a log x axis bent it upward).
  const slope = ([a, b], [c, d]) => (d - b) / (c - a);
  const whole = slope(drawn.points[0], drawn.points[drawn.points.length - 1]);
  for (let i = 1; i < drawn.points.length; i++) {
    assert.ok(Math.abs(slope(drawn.points[i - 1], drawn.points[i]) - whole) < 0.02 * Math.abs(whole), `segment ${i} has the line's slope`);
  }
  assert.ok(drawn.texts.includes('\u221ad\u2096') && drawn.texts.includes('std'), drawn.texts.join(' | '));
  assert.ok(!drawn.texts.some((t) => /log scale/.test(t)), 'no log axis on this chart');
  assert.match(drawn.text, /The largest gradient is the largest entry, in size, of the softmax\u2019s Jacobian for that row/);
  assert.deepEqual(problems, []);
  await close();
});
