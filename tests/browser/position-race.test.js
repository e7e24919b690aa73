'use strict';
// <position-race> as a learner uses it, keyboard only: rank the five position schemes, start the
// race, and read the engine's formation steps, the learned table's refusal and the losses past
// the training length, against node's engine; under a strict policy (a worker from the page's
// own origin, or none at all: the page in slices under 50 ms); at 390 px and in the dark; and
// removed mid-race (or while its worker starts), which ends the worker.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { launch, watchedPage, settled, sendPolicy, traceTasks, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');

const root = path.resolve(__dirname, '..', '..');
const HOST = 'tests/browser/hosts/position-race.html';

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

async function open(host = HOST, opts = {}) {
  const url = `${server.url}${host}`;
  const w = await watchedPage(browser, opts);
  if (opts.csp) await sendPolicy(w.page, `${server.url}${host}*`, opts.csp);
  await w.page.goto(url);
  await settled(w.page, 60000);
  return w;
}

const state = (page) => page.evaluate(() => document.querySelector('position-race').state);
const active = (page) => page.evaluate(() => document.querySelector('position-race').shadowRoot.activeElement.textContent);
/** Polls the widget's state from here (a page predicate would need eval, which the CSP tests forbid). */
async function waitState(page, check, timeout = 600000) {
  const end = Date.now() + timeout;
  for (;;) {
    const s = await state(page);
    if (s && check(s)) return s;
    if (Date.now() > end) throw new Error(`waitState: timed out on ${check} with ${JSON.stringify(s)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** node's engine, the race's settings: the steps each head formed (the engine's own formed mark for the induction head), and the losses past 32. */
function nodeRun(positions) {
  const t = lab.createTrainer({ ...lab.TRAINER_DEFAULTS, positions, seed: 1 });
  try {
    const r = t.step(1000);
    const i = r.previousToken.findIndex((x) => x >= t.formedThreshold);
    const out = { previousToken: i < 0 ? null : i + 1, induction: t.formed ? t.formed.step : null, lengths: {} };
    for (const length of [64, 128]) {
      try {
        const loss = t.lossByPosition({ length }).loss.slice(32).filter((x) => x !== null);
        out.lengths[length] = loss.reduce((a, b) => a + b, 0) / loss.length;
      } catch (err) {
        out.lengths[length] = err.message;
      }
    }
    return out;
  } finally {
    t.dispose();
  }
}

test('keyboard only: the learner ranks the schemes, starts the race in a worker, and reads the engine\'s steps, the learned table\'s refusal and the losses past 32', async () => {
  const w = await open();
  const { page } = w;
  // Places by keyboard: each select from "choose" down to its place (1st, 2nd, 3rd, ..., none).
  const downs = { 'learned table': 1, sinusoidal: 2, RoPE: 3, ALiBi: 6, 'no positions': 6 };
  for (const [label, n] of Object.entries(downs)) {
    await page.getByLabel(`${label}: its place in forming an induction head`).focus();
    for (let i = 0; i < n; i++) await page.keyboard.press('ArrowDown');
  }
  await page.getByLabel('RoPE still works at 64 tokens').focus();
  await page.keyboard.press('Space');
  await page.locator('position-race button:has-text("Lock in my prediction")').focus();
  await page.keyboard.press('Enter');
  assert.equal(await active(page), 'Start the race');
  await page.keyboard.press('Enter');
  await waitState(page, (s) => s.running && s.runner === 'worker' && Object.values(s.steps).every((n) => n >= 10));
  // Pause and continue from the keyboard: the button keeps focus and says what it does next.
  await page.keyboard.press('Enter');
  const paused = await waitState(page, (s) => !s.running);
  assert.equal(await active(page), 'Continue');
  await page.keyboard.press('Enter');
  const s = await waitState(page, (st) => st.done);
  assert.ok(Object.values(paused.steps).every((n) => n < 1000));
  assert.deepEqual(s.steps, { learned: 1000, sinusoidal: 1000, rope: 1000, alibi: 1000, none: 1000 });
  // the steps node's engine marks with the same settings, whatever the page's speed and its pause
  const learned = nodeRun('learned'), rope = nodeRun('rope');
  assert.deepEqual(s.formed.learned, { previousToken: learned.previousToken, induction: learned.induction });
  assert.deepEqual(s.formed.learned, { previousToken: 156, induction: 192 });
  assert.deepEqual(s.formed.rope, { previousToken: rope.previousToken, induction: rope.induction });
  assert.deepEqual(s.formed.alibi, { previousToken: null, induction: null });
  assert.deepEqual(s.lengths.learned, { 64: 'refused', 128: 'refused' });
  for (const n of [64, 128]) assert.ok(Math.abs(s.lengths.rope[n] - rope.lengths[n]) < 1e-12, `RoPE past 32 at ${n}`);
  const text = await page.evaluate(() => document.querySelector('position-race').shadowRoot.querySelector('.al-frame').innerText);
  // the learned table's refusal as the engine words it, in a note, not an alert
  assert.ok(text.includes(`Asked for the loss on longer sequences, the engine refuses rather than guess: \u201c${learned.lengths[64]}\u201d`));
  assert.match(text, /learned table\s+156\s+192\s+refused\s+refused/);
  assert.match(text, /ALiBi\s+none\s+none\s+2\.58\s+2\.74/);
  assert.match(text, /What happened\n+Right: the engine\u2019s order: learned table \(step 192\), sinusoidal \(step 271\), RoPE \(step 361\); none in 1,000 steps: ALiBi, no positions\./);
  assert.match(text, /Right at 64 tokens: you said RoPE; still working \(loss from position 32 on under 1 nat\): RoPE\. Lowest: RoPE, 0\.37 nats\./);
  assert.equal(await page.locator('position-race .al-trainer-alert').isVisible(), false);
  assert.equal(await page.locator('position-race button:has-text("Finished")').isDisabled(), true);
  // the position chart's length, by keyboard: the chart and the pressed button follow (review V8, M4)
  const pressed = () => page.locator('position-race [aria-label="sequence length of the position chart"] button').evaluateAll((bs) => bs.map((b) => `${b.textContent}:${b.getAttribute('aria-pressed')}`));
  assert.deepEqual(await pressed(), ['64 tokens:false', '128 tokens:true']);
  await page.locator('position-race button:has-text("64 tokens")').focus();
  await page.keyboard.press('Enter');
  assert.match(await page.locator('position-race svg title >> nth=1').textContent(), /^Loss at each position of 64-token sequences\. .*RoPE 0\.37 nats/);
  assert.deepEqual(await pressed(), ['64 tokens:true', '128 tokens:false']);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  assert.match(await page.locator('position-race svg title >> nth=1').textContent(), /^Loss at each position of 128-token sequences/);
  assert.deepEqual(await pressed(), ['64 tokens:false', '128 tokens:true']);
  // the 1-nat line is named under the chart, not over its curves
  assert.equal(await page.locator('position-race .al-guide-label').count(), 0);
  assert.match(await page.locator('position-race .al-legend-list >> nth=1').textContent(), /1 nat: under it a scheme still works/);
  // at 390 px the finished results table fits its box: no column cut off (review V8, L1)
  await page.setViewportSize({ width: 390, height: 800 });
  const fits = await page.evaluate(() => {
    const t = document.querySelector('position-race').shadowRoot.querySelector('.al-race-table');
    return { table: t.getBoundingClientRect().width, box: t.parentElement.clientWidth };
  });
  assert.ok(fits.table <= fits.box + 1, `the results table fits at 390 px: ${JSON.stringify(fits)}`);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('a prediction with a place given twice is not locked in, and says why', async () => {
  const w = await open();
  const { page } = w;
  for (const label of ['learned table', 'sinusoidal']) await page.getByLabel(`${label}: its place in forming an induction head`).selectOption('1');
  await page.locator('position-race button:has-text("Lock in my prediction")').click();
  assert.equal(await page.locator('position-race .al-race-predict .al-input-message').textContent(), 'Give every scheme a place (or none).');
  for (const label of ['RoPE', 'ALiBi', 'no positions']) await page.getByLabel(`${label}: its place in forming an induction head`).selectOption('none');
  await page.locator('position-race button:has-text("Lock in my prediction")').click();
  assert.equal(await page.locator('position-race .al-race-predict .al-input-message').textContent(), 'Two schemes are placed 1st: each place once.');
  assert.equal((await state(page)).predicted, null);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('under a strict header policy (scripts and workers from the page\'s own origin) the race runs in a worker from the script\'s address, nothing refused', async () => {
  const w = await open(HOST, { csp: CSP.strict });
  const { page } = w;
  await page.click('position-race button:has-text("Skip the prediction")');
  await page.click('position-race button:has-text("Start the race")');
  const s = await waitState(page, (st) => st.runner && Object.values(st.steps).every((n) => n >= 10));
  assert.equal(s.runner, 'worker');
  assert.ok(page.workers().some((x) => x.url().endsWith('/dist/attention-lab.js')), page.workers().map((x) => x.url()).join(', '));
  assert.match(await page.locator('position-race .al-trainer-status').textContent(), /in a background thread, the five in turn/);
  await page.click('position-race button:has-text("Pause")');
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('under an LMS\'s policy that allows it no worker (Trusted Types with no policy) it races on the page in slices under 50 ms of CPU, nothing refused; removed mid-race it stops', async () => {
  const w = await open('tests/browser/hosts/position-race-csp.html');
  const { page } = w;
  await page.click('position-race button:has-text("Skip the prediction")');
  const trace = await traceTasks(page);
  await page.click('position-race button:has-text("Start the race")');
  await waitState(page, (st) => Object.values(st.steps).every((n) => n >= 20));
  const tasks = await trace.stop();
  const s = await state(page);
  assert.equal(s.runner, 'page');
  assert.deepEqual(tasks.filter((x) => x.cpu >= 50).map((x) => Math.round(x.cpu)), []);
  assert.match(await page.locator('position-race .al-trainer-status').textContent(), /training on this page in short slices/);
  // taken off the page mid-race, it trains no more
  const steps = await page.evaluate(() => {
    const el = document.querySelector('position-race');
    window.race = el;
    el.remove();
    return el.lanes.map((l) => l.steps);
  });
  await page.waitForTimeout(1500);
  assert.deepEqual(await page.evaluate(() => window.race.lanes.map((l) => l.steps)), steps);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('removed while its worker starts, or mid-race, the worker ends; a new race on the page runs', async () => {
  const w = await open();
  const { page } = w;
  // focus starts the worker; removed at once, the worker it was starting is ended when it is ready
  await page.locator('position-race button:has-text("Start the race")').focus();
  await page.evaluate(() => document.querySelector('position-race').remove());
  await page.waitForTimeout(5000);
  assert.equal(page.workers().length, 0);
  await page.evaluate(() => document.querySelector('main').insertAdjacentHTML('beforeend', '<position-race predict="false"></position-race>'));
  await settled(page, 60000);
  await page.click('position-race button:has-text("Start the race")');
  await waitState(page, (s) => s.running && s.runner === 'worker');
  assert.equal(page.workers().length, 1);
  const closed = new Promise((resolve) => page.workers()[0].once('close', resolve));
  await page.evaluate(() => document.querySelector('position-race').remove());
  await closed;
  assert.equal(page.workers().length, 0);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('hiding the tab pauses the race, showing it resumes; a race the reader paused stays paused', async () => {
  const w = await open();
  const { page } = w;
  const setHidden = (hidden) => page.evaluate((hh) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hh });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hh ? 'hidden' : 'visible') });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
  const slowest = (s) => Math.min(...Object.values(s.steps));
  const total = (s) => Object.values(s.steps).reduce((a, b) => a + b, 0);
  await page.click('position-race button:has-text("Skip the prediction")');
  await page.click('position-race button:has-text("Start the race")');
  await waitState(page, (s) => s.running && slowest(s) > 3);
  await setHidden(true);
  await waitState(page, (s) => !s.running, 30000);
  assert.match(await page.locator('position-race .al-trainer-status').textContent(), /Paused while this tab is hidden\.$/);
  await page.waitForTimeout(1000);  // the turn in flight when the pause arrived reports
  const settledSteps = total(await state(page));
  await page.waitForTimeout(1500);
  assert.equal(total(await state(page)), settledSteps, 'no step while hidden');
  await setHidden(false);
  await waitState(page, (s) => s.running && total(s) > settledSteps);
  assert.doesNotMatch(await page.locator('position-race .al-trainer-status').textContent(), /hidden/);
  // the reader pauses, then the tab is hidden and shown: the race stays paused
  await page.click('position-race button:has-text("Pause")');
  await waitState(page, (s) => !s.running);
  await setHidden(true);
  await setHidden(false);
  await page.waitForTimeout(1000);
  assert.equal((await state(page)).running, false);
  assert.equal(await page.locator('position-race button:has-text("Continue")').count(), 1);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('at 390 px and in the dark the race fits its width, and Reset starts afresh', async () => {
  const w = await open(HOST, { width: 390, height: 800, colorScheme: 'dark' });
  const { page } = w;
  await page.evaluate(() => document.querySelector('position-race').setAttribute('theme', 'dark'));
  await page.waitForFunction(() => document.querySelector('position-race').shadowRoot.querySelector('.al-frame').classList.contains('al-dark'));
  const fit = await page.evaluate(() => {
    const el = document.querySelector('position-race');
    const frame = el.shadowRoot.querySelector('.al-frame');
    return { frame: frame.scrollWidth <= frame.clientWidth + 1, page: document.documentElement.scrollWidth <= 390 };
  });
  assert.deepEqual(fit, { frame: true, page: true });
  // the results table with its widest cells (a step of four digits, a refusal at each length) fits its box without
  // scrolling, in the widget's width in lesson 8 at 390 px (350 px; the host page leaves it more)
  const table = await page.evaluate(async () => {
    const el = document.querySelector('position-race');
    el.style.width = '350px';
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const t = el.shadowRoot.querySelector('.al-race-table');
    for (const row of t.tBodies[0].rows) Array.from(row.cells).slice(1).forEach((c, i) => { c.textContent = i < 2 ? '1000' : 'refused'; });
    const out = { width: t.scrollWidth, box: t.parentElement.clientWidth };
    el.style.width = '';
    return out;
  });
  assert.ok(table.width <= table.box, `results table ${table.width} px in a box of ${table.box} px`);
  // axe-core finds nothing (contrast of the dark lines and labels, the tables' headers, the controls' names)
  await page.addScriptTag({ content: fs.readFileSync(path.join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8') });
  assert.deepEqual(await page.evaluate(async () => (await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] })).violations.map((v) => v.id)), []);
  await page.click('position-race button:has-text("Skip the prediction")');
  await page.click('position-race button:has-text("Start the race")');
  await waitState(page, (st) => Object.values(st.steps).every((n) => n >= 5));
  await page.click('position-race button:has-text("Reset")');
  const s = await waitState(page, (st) => !st.running);
  assert.deepEqual(s.steps, { learned: 0, sinusoidal: 0, rope: 0, alibi: 0, none: 0 });
  assert.equal(await page.locator('position-race button:has-text("Start the race")').isVisible(), true);
  assert.deepEqual(w.problems, []);
  await w.close();
});
