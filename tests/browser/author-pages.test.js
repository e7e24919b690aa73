'use strict';
// What a course author meets with <model-attention> and <attention-trainer> on pages we did not
// write (tests/browser/hosts/): attention that arrives from the page's own script later, with a
// real file's metadata; a trainer under an LMS's strict policy (worker-src 'self', Trusted Types
// with no policy allowed), under header policies, and from the elements module with no policy.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const fs = require('fs');
const { browserAndServer, watchedPage, settled, sendPolicy, CSP } = require('./browser.js');

const root = path.resolve(__dirname, '..', '..');
const HOSTS = 'tests/browser/hosts/';
const env = browserAndServer(test, root);
// The browser and the server exist once the tests run.
const server = { get url() { return env.url(); } };

/** Polls a value from here (a page predicate would need eval, which the strict pages forbid). */
async function until(page, read, check, timeout = 60000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await page.evaluate(read);
    if (check(v)) return v;
    if (Date.now() > end) throw new Error(`until: timed out with ${JSON.stringify(v)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const trainerState = () => document.querySelector('attention-trainer').state;
const GPT2 = JSON.parse(fs.readFileSync(path.join(root, 'web', 'site', 'data', 'gpt2-quick-brown-fox.json'), 'utf8'));

test('an empty <model-attention> waits for its data, with no error; setAttention before or after al-ready draws it, metadata and all', async () => {
  const { page, problems, close } = await watchedPage(env.browser());
  await page.goto(`${server.url}${HOSTS}model-later.html`);
  await settled(page);
  // #later: ready and waiting, a status line and no alert, no view, no error event.
  const later = await page.$eval('#later', (el) => ({ status: el.status, state: el.state, alert: el.shadowRoot.querySelectorAll('[role="alert"]').length,
    status2: el.shadowRoot.querySelector('[role="status"]').textContent, tabs: el.shadowRoot.querySelector('[role="tablist"]').hidden }));
  assert.deepEqual(later, { status: 'ready', state: { view: 'model', layer: null, head: null, headViewLayer: 0, heads: [], sort: 'layer', dir: 'ascending', filter: '', min: 0.5, pair: 'all', waiting: true },
    alert: 0, status2: 'Waiting for the attention data.', tabs: true });
  await page.evaluate(() => window.laterGo());
  const drawn = await page.$eval('#later', (el) => ({ status: el.status, waiting: el.state.waiting, thumbs: el.shadowRoot.querySelectorAll('.al-thumb').length,
    about: el.shadowRoot.querySelector('.al-muted').textContent, meta: el.shadowRoot.querySelector('.al-model-meta').textContent }));
  assert.equal(drawn.status, 'ready');
  assert.equal(drawn.waiting, false);
  assert.equal(drawn.thumbs, 144);
  assert.match(drawn.about, /^12 layers \u00d7 12 heads, 10 tokens, causal\./);
  assert.equal(drawn.meta, `model: gpt2; sentence: ${GPT2.sentence}; license: ${GPT2.license}; source: ${GPT2.source.url}`);
  // #early: setAttention called while the element was still loading waited for it, then drew.
  await until(page, () => window.authorLog.slice(), (log) => log.includes('early drawn'));
  const log = await page.evaluate(() => window.authorLog);
  assert.ok(log.includes('early called while loading'), log.join(' | '));
  assert.ok(log.includes('later ready, waiting: true'), log.join(' | '));
  assert.equal(await page.$eval('#early', (el) => el.shadowRoot.querySelectorAll('.al-thumb').length), 144);
  // #prop: the data property with the same file (its metadata keys are kept, not refused).
  await until(page, () => document.querySelector('#prop').shadowRoot.querySelectorAll('.al-thumb').length, (n) => n === 144);
  assert.deepEqual(problems, []);
  await close();
});

test('a bad key is still named with this element\'s keys only, and an element given bad data shows the error, not a wait', async () => {
  const { page, problems, close } = await watchedPage(env.browser());
  await page.goto(`${server.url}${HOSTS}model-later.html`);
  await settled(page);
  const message = await page.$eval('#later', (el) => el.setAttention({ tokens: ['a'], attention: [[[1]]] }).then(() => 'drawn', (err) => err.message));
  assert.equal(message, '<model-attention>: attentions is missing; expected nested arrays [layers][heads][queries][keys] or [heads][queries][keys], { shape, data }, or { shape, dtype, base64 }');
  assert.doesNotMatch(message, /\bQ\b|Wq/);
  assert.equal(await page.$eval('#later', (el) => el.state.waiting), true, 'still waiting for good data');
  assert.deepEqual(problems, []);
  await close();
});

/** Opens a trainer host page (after `before(page)`), skips the prediction and presses `button`. */
async function pressTrainer(file, button, before) {
  const w = await watchedPage(env.browser());
  if (before) await before(w.page);
  await w.page.goto(`${server.url}${HOSTS}${file}`);
  await until(w.page, () => document.querySelector('attention-trainer').status, (s) => s === 'ready');
  await w.page.click('attention-trainer button:has-text("Skip the prediction")');
  await w.page.click(`attention-trainer button:has-text("${button}")`);
  return w;
}

test('a trainer under an LMS\'s strict policy (worker-src \'self\', Trusted Types allowing no policy) trains on the page in slices, with no console error', async () => {
  const { page, problems, close } = await pressTrainer('trainer-csp.html', 'Train');
  const s = await until(page, trainerState, (st) => st.step >= 40 && !st.running, 240000);
  assert.equal(s.runner, 'page');
  assert.match(await page.locator('attention-trainer .al-trainer-status').textContent(), /on this page in short slices/);
  assert.deepEqual(problems, [], 'nothing refused: the policy was read before any worker was tried');
  await close();
});

/** Opens the plain trainer host under a header policy; trains a step; returns the runner and the problems. */
async function trainerUnder(csp) {
  const w = await pressTrainer('trainer.html', 'One step', (page) => sendPolicy(page, `${server.url}${HOSTS}*`, csp));
  const s = await until(w.page, trainerState, (st) => st.step === 1);
  const workers = w.page.workers().map((x) => x.url());
  await w.close();
  return { runner: s.runner, problems: w.problems, workers };
}

test('under a strict header policy (scripts and workers from the page\'s own origin) the trainer gets a worker from the script\'s own address, nothing refused', async () => {
  const strict = await trainerUnder(CSP.strict);
  assert.equal(strict.runner, 'worker');
  assert.deepEqual(strict.problems, []);
  assert.ok(strict.workers.some((u) => u.endsWith('/dist/attention-lab.js')), strict.workers.join(', '));
  // The documented policy for Trusted Types: allow the kit's policy by name.
  const tt = await trainerUnder(`${CSP.strict}; require-trusted-types-for 'script'; trusted-types attention-lab`);
  assert.equal(tt.runner, 'worker');
  assert.deepEqual(tt.problems, []);
});

test('from the elements module on a page with no policy, the trainer trains in a worker (a Blob of the engine module\'s own source)', async () => {
  const { page, problems, close } = await pressTrainer('trainer-module.html', 'One step');
  const s = await until(page, trainerState, (st) => st.step === 1);
  assert.equal(s.runner, 'worker');
  assert.doesNotMatch(await page.locator('attention-trainer .al-trainer-status').textContent(), /allows no background thread/);
  assert.deepEqual(problems, []);
  await close();
});
