'use strict';
// <attention-trainer> as a learner uses it, keyboard first: predict, train in a Web Worker until an
// induction head forms (over http, and on the page in slices under a CSP that forbids blob:
// workers), pause when the tab is hidden, diverge at a learning rate of 10 and reset, type seeds
// the engine refuses, export the losses, weights and a head, and remove the widget mid-run.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { launch, watchedPage, settled, sendPolicy, traceTasks, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { parseCSV } = require('../node/csv-reader.js');

const root = path.resolve(__dirname, '..', '..');
const HOST = 'tests/browser/hosts/trainer.html';

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

async function open(query = '', opts = {}) {
  const url = `${server.url}${HOST}${query}`;
  const w = await watchedPage(browser, opts);
  if (opts.csp) await sendPolicy(w.page, `${server.url}${HOST}*`, opts.csp);
  await w.page.goto(url);
  await settled(w.page, 60000);
  return w;
}

const state = (page) => page.evaluate(() => document.querySelector('attention-trainer').state);
const frameText = (page) => page.evaluate(() => document.querySelector('attention-trainer').shadowRoot.querySelector('.al-frame').innerText);
/** Every head's canvas pixels, to tell whether the patterns were redrawn (not the composition heatmap's canvas). */
const pixels = (page) => page.evaluate(() => Array.from(document.querySelector('attention-trainer').shadowRoot.querySelectorAll('canvas.al-trainer-canvas'),
  (c) => Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data).join(',')));
/** Polls the widget's state from here (a page predicate would need eval, which the CSP tests forbid). */
async function waitState(page, check, timeout = 240000) {
  const end = Date.now() + timeout;
  for (;;) {
    const s = await state(page);
    if (s && check(s)) return s;
    if (Date.now() > end) throw new Error(`waitState: timed out on ${check} with ${JSON.stringify(s)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The step at which node's engine marks seed `seed`'s first induction head (the widget's defaults). */
function nodeFormed(seed) {
  const t = lab.createTrainer({ seed });
  try {
    while (!t.formed && t.steps < 600) t.step(50);
    return t.formed;
  } finally {
    t.dispose();
  }
}

/** Records the al-head-formed events the page's trainers fire, in window.headsFormed. */
const recordHeadsFormed = (page) => page.addInitScript(() => {
  window.headsFormed = [];
  document.addEventListener('al-head-formed', (e) => window.headsFormed.push(e.detail));
});

test('keyboard only: the learner predicts, trains in a worker until an induction head forms, and the reveal judges the prediction', async () => {
  const w = await watchedPage(browser);
  const { page } = w;
  await recordHeadsFormed(page);
  await page.goto(`${server.url}${HOST}`);
  await settled(page, 60000);
  const before = await pixels(page);
  assert.equal(before.length, 4, 'two layers of two heads');
  // Predict with the keyboard: the radio for layer 1, the plateau, then lock in.
  await page.locator('attention-trainer input[value="layer-1"]').focus();
  await page.keyboard.press('Space');
  await page.locator('attention-trainer input[value="plateau"]').focus();
  await page.keyboard.press('Space');
  await page.locator('attention-trainer button:has-text("Lock in my prediction")').focus();
  await page.keyboard.press('Enter');
  // Lock-in moves focus to Train: Enter starts it.
  assert.equal(await page.evaluate(() => document.querySelector('attention-trainer').shadowRoot.activeElement.textContent), 'Train');
  const trace = await traceTasks(page);
  await page.keyboard.press('Enter');
  await waitState(page, (s) => s.running && s.step > 20);
  const tasks = await trace.stop();
  await waitState(page, (s) => s.formedAt !== null);
  const s = await state(page);
  assert.equal(s.runner, 'worker');
  // the step the engine's record marks, as node's engine gives it: not a sample of wall time
  const formed = nodeFormed(1);
  assert.equal(formed.step, 192);
  assert.equal(s.formedAt, formed.step);
  assert.deepEqual(await page.evaluate(() => window.headsFormed), [formed]);
  // Training is off the main thread: no task of 50 ms of CPU while it ran.
  assert.deepEqual(tasks.filter((x) => x.cpu >= 50).map((x) => Math.round(x.cpu)), []);
  await waitState(page, (st) => !st.running);
  const after = await pixels(page);
  assert.equal(after.filter((p, i) => p !== before[i]).length, 4, 'every head\'s picture changed');
  const card = await page.evaluate(() => {
    const formed = document.querySelector('attention-trainer').shadowRoot.querySelector('.al-trainer-head.al-formed');
    return formed && { label: formed.querySelector('.al-trainer-head-view').getAttribute('aria-label'), width: formed.querySelector('.al-bar-ind').style.width };
  });
  assert.ok(card, 'a head is marked as an induction head');
  assert.match(card.label, /^Layer 1, head \d: previous-token score 0\.\d\d on the first copy, 0\.\d\d on every row; induction score 0\.\d\d, an induction head\.$/);
  assert.ok(parseInt(card.width, 10) >= 50);
  const text = await frameText(page);
  assert.match(text, /What happened\n+Right: the induction head formed in layer 1/);
  assert.match(text, /Right: after a quick first fall, the loss stayed at about \d\.\d\d \(its mean from step \d+ to \d+\), then dropped to \d\.\d\d by step \d+\./);
  assert.match(text, /previous, first copy\s+0\.\d\d\s+previous, every row\s+0\.\d\d\s+induction\s+0\.\d\d/);
  assert.match(text, /Your prediction: layer 1; the loss will stay high for a while, then drop steeply\. What happened is below the heads\./);
  assert.match(text, new RegExp(`induction head, step ${s.formedAt.toLocaleString('en-US')}`));
  assert.doesNotMatch(text, /NaN|Infinity|undefined/);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('under a strict CSP without workers it trains on the page, in slices of under 50 ms of CPU, and still forms the head', async () => {
  // (CSP.strict alone lets the page's own origin run workers: the trainer then has one, tests/browser/author-pages.test.js)
  const w = await open('?tr.seed=2', { csp: `${CSP.strict}; worker-src 'none'` });
  const { page } = w;
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  const trace = await traceTasks(page);
  await page.click('attention-trainer button:has-text("Train")');
  await waitState(page, (s) => s.step >= 60);
  const tasks = await trace.stop();
  const s = await state(page);
  assert.equal(s.runner, 'page');
  assert.equal(s.seed, 2);
  assert.deepEqual(tasks.filter((x) => x.cpu >= 50).map((x) => Math.round(x.cpu)), []);
  assert.match(await page.locator('attention-trainer .al-trainer-status').textContent(), /training on this page in short slices/);
  await waitState(page, (st) => st.formedAt !== null);
  await w.close();
});

test('a strict CSP that allows blob: workers trains in a worker', async () => {
  const w = await open('', { csp: `${CSP.strict}; worker-src blob:` });
  await w.page.click('attention-trainer button:has-text("Skip the prediction")');
  await w.page.click('attention-trainer button:has-text("One step")');
  await waitState(w.page, (s) => s.step === 1);
  assert.equal((await state(w.page)).runner, 'worker');
  await w.close();
});

test('a learning rate of 10 diverges: the widget says at which step in words, never a NaN, and Reset starts again', async () => {
  const w = await open();
  const { page } = w;
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.selectOption('attention-trainer select >> nth=1', '10');
  await page.locator('attention-trainer button:has-text("Train")').focus();
  await page.keyboard.press('Enter');
  await waitState(page, (s) => s.diverged);
  const alert = await page.locator('attention-trainer .al-trainer-alert').textContent();
  assert.match(alert, /^The run diverged\. At step \d+ the loss (reached [\d.e+]+ nats|stopped being a number|grew past)/);
  assert.match(alert, /A learning rate of 10 moves every weight too far/);
  assert.doesNotMatch(await frameText(page), /NaN|Infinity/);
  assert.equal(await page.locator('attention-trainer button:has-text("Continue"), attention-trainer button:has-text("Train")').first().isDisabled(), true);
  // Train, pressed with Enter, is disabled: the focus moved to the alert's Reset, not to the page
  assert.equal(await page.evaluate(() => document.querySelector('attention-trainer').shadowRoot.activeElement.textContent), 'Reset');
  assert.match(await page.locator('attention-trainer .al-trainer-status').textContent(), /The run diverged at step \d+\.$/);
  await page.keyboard.press('Enter');
  await waitState(page, (s) => !s.diverged && s.step === 0);
  assert.equal(await page.locator('attention-trainer .al-trainer-alert').isVisible(), false);
  assert.equal(await page.locator('attention-trainer button:has-text("Train")').isDisabled(), false);
  await w.close();
});

test('hiding the tab pauses training and showing it again resumes', async () => {
  const w = await open();
  const { page } = w;
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.click('attention-trainer button:has-text("Train")');
  await waitState(page, (s) => s.running && s.step > 3);
  const setHidden = (hidden) => page.evaluate((h) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
  await setHidden(true);
  await waitState(page, (s) => !s.running);
  const paused = (await state(page)).step;
  await page.waitForTimeout(1500);
  assert.ok((await state(page)).step <= paused + 40, 'at most the reports already in flight arrive after the pause');
  const settledStep = (await state(page)).step;
  await page.waitForTimeout(1000);
  assert.equal((await state(page)).step, settledStep, 'no step while hidden');
  assert.match(await page.locator('attention-trainer .al-trainer-status').textContent(), /Paused while this tab is hidden/);
  await setHidden(false);
  await waitState(page, (s) => s.running && s.step > settledStep);
  await w.close();
});

test('seeds the engine refuses are explained beside the box, the model stays, and a good seed goes into the URL', async () => {
  const w = await open();
  const { page } = w;
  const box = page.locator('attention-trainer input[inputmode="numeric"]');
  const message = page.locator('attention-trainer .al-input-message');
  for (const [typed, said] of [['-5', 'seed = -5; expected a whole number from 0 to 2^53 - 1'],
    ['99999999999999999999', 'seed = 100000000000000000000 is past 2^53, more than a number holds exactly; expected at most 2^53'],
    ['seven', '“seven” is not a number; type a whole number such as 7'], ['', 'type a seed: a whole number such as 7']]) {
    await box.fill(typed);
    await box.press('Enter');
    await page.waitForFunction((t) => document.querySelector('attention-trainer').shadowRoot.querySelector('.al-input-message').textContent === t, said);
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    assert.equal((await state(page)).seed, 1, `after ${typed}`);
    assert.equal(await page.evaluate(() => document.querySelector('attention-trainer').status), 'ready');
  }
  await box.fill('7');
  await box.press('Enter');
  await waitState(page, (s) => s.seed === 7);
  assert.equal(await message.textContent(), '');
  await page.waitForFunction(() => /tr\.seed=7/.test(window.location.search));
  await w.close();
});

test('exports: the losses CSV has every step, the weights load into loadTrainer with the same evaluation, a head saves as SVG', async () => {
  const w = await open('?tr.task=copy&tr.seed=4', { });
  const { page } = w;
  assert.equal((await state(page)).task, 'copy');
  // the probe's induction and previous-token scores mean nothing on the copy task: no bars, the answer's accuracy instead
  assert.equal(await page.locator('attention-trainer .al-trainer-bars').count(), 0);
  assert.match(await frameText(page), /accuracy \(0 to 1\)[\s\S]*accuracy on the answer \(each batch\)/);
  assert.match(await page.locator('attention-trainer .al-trainer-chart svg title >> nth=1').textContent(), /^How often the answer is right\./);
  assert.doesNotMatch(await frameText(page), /induction score|What the heads do/);
  await page.click('attention-trainer button:has-text("One step")');
  await waitState(page, (s) => s.step === 1);
  for (let i = 0; i < 4; i++) await page.click('attention-trainer button:has-text("One step")');
  await waitState(page, (s) => s.step === 5);
  const saved = async (label) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`attention-trainer button:has-text("${label}")`)]);
    return fs.readFileSync(await download.path(), 'utf8');
  };
  const rows = parseCSV(await saved('Losses (CSV)'));
  assert.deepEqual(rows[0], ['step', 'loss', 'accuracy', 'L0H0 previous-token', 'L0H0 induction', 'L0H1 previous-token', 'L0H1 induction',
    'L1H0 previous-token', 'L1H0 induction', 'L1H1 previous-token', 'L1H1 induction']);
  assert.deepEqual(rows.slice(1).map((r) => Number(r[0])), [1, 2, 3, 4, 5]);
  // The same seed and task in node give the same losses, bit for bit.
  const t = lab.createTrainer({ task: 'copy', seed: 4 });
  try {
    const r = t.step(5);
    assert.deepEqual(rows.slice(1).map((row) => Number(row[1])), Array.from(r.losses));
    const weights = JSON.parse(await saved('Weights (JSON)'));
    assert.equal(weights.format, 'attention-lab-weights');
    assert.equal(weights.step, 5);
    const loaded = lab.loadTrainer(weights);
    assert.deepEqual(loaded.evaluate(), t.evaluate());
    loaded.dispose();
  } finally {
    t.dispose();
  }
  // One head's picture, through its export menu.
  await page.locator('attention-trainer .al-trainer-head >> nth=0').locator('.al-export-button').click();
  const [svg] = await Promise.all([page.waitForEvent('download'), page.click('attention-trainer .al-trainer-head >> nth=0 >> [data-export="svg"]')]);
  const text = fs.readFileSync(await svg.path(), 'utf8');
  assert.match(text, /<title>Layer 0, head 0 after 5 steps<\/title>/);
  // A redraw repaints the same cards (on a task without score bars it built them anew, closing a head's open export menu)
  await page.evaluate(() => { window.firstCard = document.querySelector('attention-trainer').shadowRoot.querySelector('.al-trainer-head'); });
  await page.click('attention-trainer button:has-text("One step")');
  await page.waitForFunction(() => /after 6 steps/.test(document.querySelector('attention-trainer').shadowRoot.querySelector('.al-trainer-example').textContent));
  assert.equal(await page.evaluate(() => window.firstCard === document.querySelector('attention-trainer').shadowRoot.querySelector('.al-trainer-head')), true);
  await w.close();
});

test('removing the widget mid-run ends its worker, and the page keeps working', async () => {
  const w = await open();
  const { page } = w;
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.click('attention-trainer button:has-text("Train")');
  await waitState(page, (s) => s.running && s.runner === 'worker');
  assert.equal(page.workers().length, 1);
  const closed = new Promise((resolve) => page.workers()[0].once('close', resolve));
  await page.evaluate(() => document.querySelector('attention-trainer').remove());
  await closed;
  assert.equal(page.workers().length, 0);
  // A new trainer on the same page trains as well.
  await page.evaluate(() => document.querySelector('main').insertAdjacentHTML('beforeend', '<attention-trainer steps="10"></attention-trainer>'));
  await settled(page, 60000);
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.click('attention-trainer button:has-text("Train")');
  await waitState(page, (s) => s.step === 10 && !s.running);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('the same seed marks the same step on a slow page: trained on the page at a quarter of the CPU speed, seed 1 still marks node\'s step', async () => {
  const w = await watchedPage(browser);
  const { page } = w;
  await recordHeadsFormed(page);
  await page.goto(`${server.url}${HOST}`);
  await settled(page, 60000);
  await page.evaluate(() => document.querySelector('attention-trainer').setAttribute('worker', 'off'));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.click('attention-trainer button:has-text("Train")');
  const s = await waitState(page, (st) => st.formedAt !== null);
  assert.equal(s.runner, 'page');
  const formed = nodeFormed(1);
  assert.equal(s.formedAt, formed.step);
  assert.deepEqual(await page.evaluate(() => window.headsFormed), [formed]);
  assert.match(await page.locator('attention-trainer .al-trainer-chart svg >> nth=0').locator('text.al-mark-label').textContent(), new RegExp(`induction head, step ${formed.step}$`));
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await w.close();
});

test('a learning rate of 0.03 forms a head, then unlearns it: the widget stops with plain words, the reveal says the head came apart, focus stays on a control', async () => {
  const w = await open();
  const { page } = w;
  await page.evaluate(() => {
    document.querySelector('attention-trainer').remove();
    document.querySelector('main').insertAdjacentHTML('beforeend', '<attention-trainer id="hot" lr="0.03" steps="1500"></attention-trainer>');
  });
  await settled(page, 60000);
  for (const value of ['layer-1', 'plateau']) {
    await page.locator(`attention-trainer input[value="${value}"]`).focus();
    await page.keyboard.press('Space');
  }
  await page.locator('attention-trainer button:has-text("Lock in my prediction")').focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');  // Train, where the lock-in left the focus
  const s = await waitState(page, (st) => st.worseAt !== null && !st.running);
  assert.ok(s.formedAt !== null && s.formedAt < 100, `the head formed first (${s.formedAt})`);
  assert.equal(s.diverged, false);
  // node's engine says the same run got worse than a uniform guess at the same step
  const t = lab.createTrainer({ lr: 0.03 });
  let r;
  do r = t.step(1); while (!r.worseThanUniform && t.steps < 1500);
  t.dispose();
  assert.equal(s.worseAt, r.step);
  const alert = await page.locator('attention-trainer .al-trainer-alert').textContent();
  // as many decimals as tell the two losses apart (the run stops the first time it is past ln 32)
  let digits = 2;
  while (r.recentLoss.toFixed(digits) === Math.log(32).toFixed(digits)) digits++;
  assert.match(alert, new RegExp(`^The run is unlearning\\. By step ${r.step.toLocaleString('en-US')} the loss averaged ${r.recentLoss.toFixed(digits).replace('.', '\\.')} nats over the last 50 steps: worse than ${Math.log(32).toFixed(digits).replace('.', '\\.')}, the loss of a model that gives all 32 tokens the same chance`));
  assert.match(alert, /The induction head that formed at step \d+ has come apart: the best induction score is 0\.\d\d\. A learning rate of 0\.03 moves the weights too far/);
  const text = await frameText(page);
  const apart = /Right: the induction head formed in layer 1 \(head \d, induction score 0\.\d\d at step \d+\), then came apart: the best induction score is (0\.\d\d) at step ([\d,]+)\./.exec(text);
  assert.ok(apart, text);
  // the reveal is drawn from the run's last report: the same step and score as the alert
  assert.equal(apart[2], r.step.toLocaleString('en-US'));
  assert.ok(alert.includes(`the best induction score is ${apart[1]}.`), `${apart[1]} in ${alert}`);
  assert.match(text, /Not this time: the loss fell to 0\.\d\d \(the mean of the 25 steps to step \d+\), then rose again to \d\.\d\d: none of the three/);
  assert.match(await page.locator('attention-trainer .al-trainer-status').textContent(), new RegExp(`Stopped at step ${r.step.toLocaleString('en-US')}: the run got worse than a uniform guess \\(every token equally likely\\)\\.$`));
  // Train (disabled while it ran? no: it stays usable) kept the focus, or it moved to Reset; never to the page
  const focused = await page.evaluate(() => { const a = document.querySelector('attention-trainer').shadowRoot.activeElement; return a && a.textContent; });
  assert.ok(['Continue', 'Reset'].includes(focused), `focus on ${focused}`);
  assert.doesNotMatch(text, /NaN|Infinity|undefined/);
  // Reset leaves nothing of the run to read: the announcer says the reset, no reveal is promised
  await page.locator('attention-trainer .al-trainer-alert button:has-text("Reset")').click();
  await waitState(page, (st) => st.step === 0 && st.worseAt === null);
  await page.waitForFunction(() => document.querySelector('attention-trainer').shadowRoot.querySelector('.al-sr[role="status"]').textContent === 'Reset: a fresh model.');
  assert.doesNotMatch(await frameText(page), /What happened|below the heads|Training stopped/);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('a status line is not left over: after Reset, Train and Pause it says the step, not the reset', async () => {
  const w = await open();
  const { page } = w;
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.click('attention-trainer button:has-text("Reset")');
  const status = page.locator('attention-trainer .al-trainer-status');
  await page.waitForFunction(() => /Reset: a fresh model/.test(document.querySelector('attention-trainer').shadowRoot.querySelector('.al-trainer-status').textContent));
  await page.click('attention-trainer button:has-text("Train")');
  await waitState(page, (st) => st.running && st.step > 3);
  await page.click('attention-trainer button:has-text("Pause")');
  await waitState(page, (st) => !st.running);
  assert.doesNotMatch(await status.textContent(), /Reset|fresh model/);
  await w.close();
});

test('removing the widget while its worker is being created ends that worker too', async () => {
  const w = await watchedPage(browser);
  const { page } = w;
  // The moment the widget asks its new worker for a model, the page removes the widget.
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      post.call(this, message, ...rest);
      if (message && message.type === 'create') document.querySelectorAll('attention-trainer').forEach((el) => el.remove());
    };
  });
  await page.goto(`${server.url}${HOST}`);
  await settled(page, 60000);
  const started = page.waitForEvent('worker');
  // The worker starts when the reader's pointer first reaches Train (so it is warm by the press).
  await page.hover('attention-trainer button:has-text("Train")');
  const worker = await started;
  await page.waitForFunction(() => !document.querySelector('attention-trainer'));
  // the worker answered 'created' to nobody: it must be gone, not left training or idle with its own engine
  await Promise.race([new Promise((resolve) => worker.once('close', resolve)), page.waitForTimeout(20000)]);
  assert.equal(page.workers().length, 0, 'no worker is left alive');
  assert.deepEqual(w.problems, []);
  await w.close();
});

for (const width of [1280, 390]) {
  test(`lesson 6 at ${width} px: while a trainer's question is open, no prose the learner can see answers it`, async () => {
    const { pathToFileURL } = require('url');
    const w = await watchedPage(browser, { width, height: 900 });
    const { page } = w;
    await page.goto(pathToFileURL(path.join(root, 'dist', 'lesson-6.html')).href);
    await settled(page, 60000);
    // what answers each question: the layer, the curve's shape, the one-layer outcome
    const ANSWERS = /second layer|first layer|layer 1\b|plateau|drops? steeply|phase change|no head (of it )?(can|reaches)|K-composition|one layer has no|cannot tell which|more than one layer|why it takes two|the token before me/i;
    for (const id of ['train', 'train-one-layer']) {
      let read = 0;
      const question = page.locator(`#${id} .al-trainer-question >> nth=0`);
      assert.equal(await question.isVisible(), true, `#${id} asks first`);
      for (const where of ['start', 'center', 'end']) {
        await question.evaluate((el, block) => el.scrollIntoView({ block }), where);
        const seen = await page.evaluate(() => {
          const out = [];
          for (const el of document.querySelectorAll('main p, main li, main h2, main h3, main summary')) {
            if (el.closest('attention-trainer') || !el.checkVisibility()) continue;
            const r = el.getBoundingClientRect();
            if (r.bottom > 0 && r.top < window.innerHeight && r.width > 0) out.push(el.textContent.replace(/\s+/g, ' ').trim());
          }
          return out;
        });
        read += seen.length;
        const leaks = seen.filter((t) => ANSWERS.test(t));
        assert.deepEqual(leaks, [], `#${id} scrolled to the ${where} at ${width} px`);
      }
      assert.ok(read > 0, `#${id}: some prose is in view beside or around the question at ${width} px`);
    }
    // the answers are there, folded until the learner opens them
    assert.equal(await page.locator('details.answer[data-answer="train"]').count(), 1);
    assert.equal(await page.locator('details.answer[data-answer="train-one-layer"]').count(), 1);
    // and the knock-out's answer (its question waits for a trained model: tests/browser/trainer-knockout.test.js)
    assert.equal(await page.locator('details.answer[data-answer="train-knockout"]').count(), 1);
    await w.close();
  });
}

test('at 390 and 1280 px every chart shows its axis titles whole and its tick labels apart, the corner labelled with one 0', async () => {
  for (const width of [390, 1280]) {
    const w = await open('', { width, height: 900 });
    const charts = await w.page.evaluate(() => Array.from(document.querySelector('attention-trainer').shadowRoot.querySelectorAll('svg.al-chart:not(.al-swatch)'), (svg) => {
      const box = svg.getBoundingClientRect();
      const texts = Array.from(svg.querySelectorAll(':scope > text')).filter((t) => t.getClientRects().length).map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent, rotated: t.hasAttribute('transform'), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      });
      return { box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom }, texts };
    }));
    assert.equal(charts.length, 2, 'the loss chart and the score chart');
    for (const { box, texts } of charts) {
      const title = texts.find((t) => t.rotated);
      assert.ok(title && /\(/.test(title.text), `a rotated y title: ${title && title.text}`);
      // The box of a text's glyphs (the font's ascent and descent) inside the chart's: no glyph is cut at its edge.
      for (const t of texts) assert.ok(t.left >= box.left && t.right <= box.right && t.top >= box.top - 0.5 && t.bottom <= box.bottom + 0.5, `"${t.text}" inside the chart at ${width} px: ${JSON.stringify([t, box])}`);
      // Tick labels (numbers) at least 3 CSS px apart, one way or the other.
      const ticks = texts.filter((t) => !t.rotated && /^\d[\d.,]*$/.test(t.text));
      for (let i = 0; i < ticks.length; i++) {
        for (let j = i + 1; j < ticks.length; j++) {
          const [a, b] = [ticks[i], ticks[j]];
          const gap = Math.max(b.left - a.right, a.left - b.right, b.top - a.bottom, a.top - b.bottom);
          assert.ok(gap >= 3, `"${a.text}" and "${b.text}" ${gap.toFixed(1)} px apart at ${width} px`);
        }
      }
      assert.equal(ticks.filter((t) => t.text === '0').length, 1, `one 0 at the corner at ${width} px`);
    }
    assert.deepEqual(w.problems, []);
    await w.close();
  }
});
