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
/** Every head's canvas pixels, to tell whether the patterns were redrawn. */
const pixels = (page) => page.evaluate(() => Array.from(document.querySelector('attention-trainer').shadowRoot.querySelectorAll('canvas'),
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

test('keyboard only: the learner predicts, trains in a worker until an induction head forms, and the reveal judges the prediction', async () => {
  const w = await open();
  const { page } = w;
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
  assert.ok(s.formedAt >= 25 && s.formedAt <= 600, `formed at step ${s.formedAt}`);
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
  assert.match(card.label, /^Layer 1, head \d: previous-token score 0\.\d\d, induction score 0\.\d\d, an induction head\.$/);
  assert.ok(parseInt(card.width, 10) >= 50);
  const text = await frameText(page);
  assert.match(text, /What happened\n+Right: the induction head formed in layer 1/);
  assert.match(text, /Right: after a quick first fall, the loss levelled off at about \d\.\d\d/);
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
  await page.locator('attention-trainer .al-trainer-alert button').focus();
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
  await page.click('attention-trainer button:has-text("One step")');
  await waitState(page, (s) => s.step === 1);
  for (let i = 0; i < 4; i++) await page.click('attention-trainer button:has-text("One step")');
  await waitState(page, (s) => s.step === 5);
  const saved = async (label) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`attention-trainer button:has-text("${label}")`)]);
    return fs.readFileSync(await download.path(), 'utf8');
  };
  const rows = parseCSV(await saved('Losses (CSV)'));
  assert.deepEqual(rows[0].slice(0, 2), ['step', 'loss']);
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
