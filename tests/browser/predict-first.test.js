'use strict';
// Predict-first that teaches (issue 23), on the lesson pages as a learner meets them: nothing
// that answers a question is visible, hoverable, focusable or in the accessibility tree before
// the learner commits; the row lesson 1 asks about first is kept back in every heatmap that
// would show it; the temperature and forgotten-transpose questions are real prompts that
// commit; the d_k = 512 question does not sit beside its answer.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { browserAndServer, openSettled } = require('./browser.js');
const { loadAttentionLab } = require('../../index.js');
const { num, fixed } = require('../../web/src/ui/format.js');

const root = path.resolve(__dirname, '..', '..');
const run = browserAndServer(test, root);
let lab;
test.before(async () => { lab = await loadAttentionLab(); });

const open = (page, opts) => openSettled(run.browser(), `${run.url()}dist/${page}`, opts);
const q = (t) => `\u201c${t}\u201d`;
const readout = (p, sel) => p.$eval(sel, (el) => el.shadowRoot.querySelector('.al-readout').textContent);

test('the index heatmap keeps the rows lesson 1 asks about out of its cells, its hover and focus readout, its exports and the accessibility tree', async () => {
  const ex = lab.examples().timeFlies;
  const w = lab.attention(ex.Q, ex.K, ex.V).weights.toArray();
  const { page: p, problems, close } = await open('index.html');
  for (const i of [1, 2]) {
    const cells = await p.$$eval(`#preview [role="gridcell"][data-row="${i}"]`, (els) => els.map((c) => [c.textContent, c.getAttribute('aria-label'), c.style.backgroundColor]));
    for (const [text, label, fill] of cells) {
      assert.equal(text, '?');
      assert.match(label, /kept back: a lesson asks you to work this row out$/);
      assert.doesNotMatch(label, /\d\.\d/);
      assert.equal(fill, '', 'no colour that would tell the weight');
    }
    for (let j = 0; j < 5; j++) {
      await p.hover(`#preview [role="gridcell"][data-row="${i}"][data-col="${j}"]`);
      assert.doesNotMatch(await readout(p, '#preview'), /\d\.\d/, `hovering (${i}, ${j}) reads no weight`);
    }
  }
  // Focus: walk every cell with the arrow keys; the readout never gives a weight of those rows.
  await p.focus('#preview [role="gridcell"][tabindex="0"]');
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 5; j++) {
      const text = await readout(p, '#preview');
      if (i === 1 || i === 2) assert.match(text, /kept back/, `focused (${i}, ${j})`);
      else assert.ok(text.endsWith(fixed(w[i][j], 2)), `focused (${i}, ${j}): ${text}`);
      await p.keyboard.press(j < 4 ? 'ArrowRight' : 'Home');
    }
    await p.keyboard.press('ArrowDown');
  }
  // The accessibility tree: every node that names a cell of those rows gives no number.
  const tree = (await p.locator('#preview').ariaSnapshot()).split('\n');
  const about = (t) => tree.filter((line) => line.includes(`query ${t},`));
  for (const t of ['flies', 'like']) {
    assert.ok(about(t).length >= 5, `the five cells of ${t} (and their row) are in the tree`);
    for (const line of about(t)) assert.doesNotMatch(line, /\d\.\d/, line);
  }
  assert.ok(about('time').some((line) => line.includes(num(w[0][0], 4))), 'the other rows give their weights');
  const figure = await p.$eval('#preview', (el) => el.view.figure().values);
  assert.deepEqual([figure[1], figure[2]], [Array(5).fill(null), Array(5).fill(null)], 'exports leave them out');
  assert.deepEqual(problems, []);
  await close();
});

test('lesson 1: the heatmap keeps the row of flies back until the stepper\'s question about it is committed, then asks about the temperature, with a hint first', async () => {
  const ex = lab.examples().timeFlies;
  const flies = Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 1, {}).weights.data);
  const { page: p, problems, close } = await open('lesson-1.html');
  const row1 = () => p.$$eval('#matrix [role="gridcell"][data-row="1"]', (cells) => cells.map((c) => c.textContent));
  const tempPrompt = p.locator('#matrix .al-predict', { hasText: 'largest temperature' });
  assert.deepEqual(await row1(), Array(5).fill('?'), 'the row of flies is kept back');
  assert.equal(await tempPrompt.isVisible(), false, 'the temperature question waits for that row');
  const tree = (await p.locator('#matrix').ariaSnapshot()).split('\n').filter((line) => line.includes('query flies,'));
  assert.ok(tree.length >= 5, 'the five cells of flies (and their row) are in the tree');
  for (const line of tree) assert.doesNotMatch(line, /\d\.\d/, `no weight of flies in the heatmap's accessibility tree: ${line}`);
  // A first miss of the weights in the stepper keeps it back; committing them shows it.
  await p.click('#lab button[aria-pressed] >> text="flies"');
  await p.click('#lab button:has-text("Next")');
  await p.click('#lab button:has-text("Show me without guessing")');
  await p.click('#lab button:has-text("Next")');
  await p.fill('#lab .al-predict input[type="text"]', '0.2, 0.2, 0.2, 0.2, 0.2');
  await p.press('#lab .al-predict input[type="text"]', 'Enter');
  assert.deepEqual(await row1(), Array(5).fill('?'), 'a first miss is not a commitment');
  assert.deepEqual((await p.$eval('#lab', (el) => el.state)).answered, []);
  await p.press('#lab .al-predict input[type="text"]', 'Enter');
  assert.deepEqual((await p.$eval('#lab', (el) => el.state)).answered, ['flies']);
  assert.deepEqual(await row1(), flies.map((x) => x.toFixed(2)), 'committed in the stepper: the heatmap shows the row');
  // The temperature question: a wrong answer gets a hint (no number), the second the engine's numbers.
  assert.equal(await tempPrompt.isVisible(), true);
  assert.match(await tempPrompt.textContent(), /at the largest temperature \(T = 4\), will "arrow" still get more than half of the weight of "flies"\?/);
  const at = (temperature) => lab.attention(ex.Q, ex.K, ex.V, { temperature }).weights.get(1, 4);
  assert.ok(at(4) < 0.5, 'at T = 4 the row of flies spreads out');
  await tempPrompt.locator('button:has-text("yes, more than half")').click();
  let said = await tempPrompt.textContent();
  assert.match(said, /Not yet\. Dividing every score of the row by a larger T shrinks the gaps between them\./);
  assert.ok(!said.includes(fixed(at(4), 2)), 'the hint gives no number');
  assert.equal((await p.$eval('#matrix', (el) => el.state)).temperature, 1, 'nothing moved the temperature');
  await tempPrompt.locator('button:has-text("yes, more than half")').click();
  said = await tempPrompt.textContent();
  assert.ok(said.includes(`Not quite: at T = 4, "arrow" gets ${num(at(4), 2)} of the row of "flies" (${num(at(1), 2)} at T = 1), and at T = 0.25 it gets ${num(at(0.25), 2)}.`), said);
  await tempPrompt.locator('button:has-text("no, less than half")').click();
  assert.match(await tempPrompt.textContent(), /Right: at T = 4/);
  assert.deepEqual(problems, []);
  await close();
});

test('lesson 2: the forgotten head transpose is a prompt that commits, judged by the engine, and its answer and the d_k = 512 answer sit folded after their questions', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  // The prose: each answer is inside a closed "After you have answered" box, not beside its question.
  const where = await p.evaluate(() => {
    const box = (el) => (el && el.closest('details') ? { open: el.closest('details').open, summary: el.closest('details').querySelector('summary').textContent } : null);
    const formula = Array.from(document.querySelectorAll('math')).find((m) => m.textContent.includes('std'));
    return { transpose: box(document.querySelector('[data-claim="heads-transpose"]')), saturation: box(document.querySelector('[data-claim="saturation"]')), formula: box(formula) };
  });
  for (const [name, box] of Object.entries(where)) {
    assert.ok(box, `${name} is in a folded answer`);
    assert.equal(box.open, false, `${name} starts closed`);
    assert.match(box.summary, /^After you have answered/);
  }
  assert.doesNotMatch(await p.evaluate(() => document.body.innerText), /std\(q/, 'the formula is not on the screen before the answer');
  // The widget's question: the engine decides what the forgotten transpose does at h = 2.
  const X = lab.randomNormal({ shape: [6, 8], seed: 7 });
  const [Wq, Wk, Wv, Wo] = [8, 9, 10, 11].map((seed) => lab.randomNormal({ shape: [8, 8], seed, stddev: 0.6 }));
  const spec = { X, Wq, Wk, Wv, Wo, heads: 2 };
  const diff = lab.maxAbsDiff(lab.multiHeadAttention({ ...spec, method: 'loop' }).output,
    lab.multiHeadAttention({ ...spec, method: 'batched', forgetMergeTranspose: true }).output);
  assert.ok(diff > 0);
  const prompt = p.locator('#heads .al-predict', { hasText: 'without moving the head axis back' });
  assert.equal(await prompt.isVisible(), false, 'one question at a time: d\u2096 first');
  await p.fill('#heads .al-predict input[type="text"]', '1');
  await p.press('#heads .al-predict input[type="text"]', 'Enter');
  await prompt.locator('button:has-text("an error")').click();
  let said = await prompt.textContent();
  assert.match(said, /Not yet\. Count the numbers: \[h, n, d\u2096\] and \[n, h\u00b7d\u2096\] hold the same number of entries\. Does a reshape check what they mean\? Try once more\./);
  assert.equal((await p.$eval('#heads', (el) => el.state)).transposeAnswered, false);
  await prompt.locator('button:has-text("the same output")').click();
  said = await prompt.textContent();
  assert.ok(said.includes(`Not quite: no error, and a different output: the largest difference from the loop over heads is ${num(diff, 4)}.`), said);
  assert.equal((await p.$eval('#heads', (el) => el.state)).transposeAnswered, true);
  assert.deepEqual(problems, []);
  await close();
});

test('lesson 3: the shape quiz keeps a hint beside its row while others are answered, and its reveal gives the rule behind [32, 50, 50]', async () => {
  const { page: p, problems, close } = await open('lesson-3.html');
  const rows = p.locator('#shapes3 tbody tr');
  const scores = rows.filter({ has: p.locator('th', { hasText: /^scores/ }) });
  await scores.locator('input').fill('32, 50, 64');
  await scores.locator('button').click();
  assert.match(await scores.textContent(), /Not yet\. Q times K\u1d40: a batched matrix product keeps the leading axes, and \[a, b\] times \[b, c\] is \[a, c\]\. Try once more\./);
  assert.doesNotMatch(await scores.textContent(), /32, 50, 50/, 'the hint does not give the shape');
  const ids = rows.first();
  await ids.locator('input').fill('32, 50');
  await ids.locator('button').click();
  assert.match(await ids.textContent(), /Right: \[32, 50\]\./);
  assert.match(await scores.textContent(), /Not yet\. Q times K\u1d40/, 'the hint stays beside its row after another row is answered');
  await scores.locator('input').fill('32, 50, 64');
  await scores.locator('button').click();
  assert.match(await scores.textContent(), /Not quite: it is \[32, 50, 50\]\. \[batch, n, n\] = \[32, 50, 50\]: Q K\u1d40 keeps the leading axes, sums over the d\u2096 that Q and K\u1d40 share, and leaves one score for each query and each key\./);
  assert.deepEqual(problems, []);
  await close();
});
