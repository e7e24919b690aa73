'use strict';
// The shipped model on a page: dist/attention-lab-model.js beside the kit registers it, and
// lab.loadModel() reads it with no fetch, from file:// and under a strict CSP, giving the
// numbers node gives.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, watchedPage, sendPolicy, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../node/lab.js');

const root = path.resolve(__dirname, '..', '..');
const TEXT = 'The cat sat on the mat. The cat sat on the mat.';

async function nodeResult() {
  const model = (await loadAttentionLab()).loadModel();
  try {
    return { attention: model.attention(TEXT), predict: model.predict(TEXT) };
  } finally {
    model.dispose();
  }
}

/** Opens the check page at `url` and waits for its result; records the requests it made. */
async function openCheck(browser, url, csp, before) {
  const watched = await watchedPage(browser);
  if (before) await watched.page.addInitScript(before);
  const kinds = [];
  watched.page.on('request', (req) => kinds.push(`${req.resourceType()} ${req.url().slice(-40)}`));
  if (csp) await sendPolicy(watched.page, url, csp);
  await watched.page.goto(url);
  await watched.page.waitForFunction(() => window.modelResult !== undefined, null, { timeout: 60000 });
  const result = await watched.page.evaluate(() => window.modelResult);
  const violations = await watched.page.evaluate(() => window.violations);
  return { ...watched, result, violations, kinds };
}

test('the shipped model loads from its script beside the kit and reads a sentence as node does', async (t) => {
  const browser = await launch();
  const server = await startServer({ root });
  const expected = await nodeResult();
  try {
    await t.test('from a file:// page, with no fetch or XHR', async () => {
      const url = pathToFileURL(path.join(__dirname, 'model', 'model.html')).href;
      const { result, problems, kinds, close } = await openCheck(browser, url);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.deepEqual(result.names, ['wordnet-small']);
      assert.deepEqual(result.attention, expected.attention);
      assert.deepEqual(result.predict, expected.predict);
      assert.deepEqual(kinds.filter((k) => /^(fetch|xhr)/.test(k)), [], 'no fetch: the model came in by <script>');
      assert.deepEqual(problems, []);
      await close();
    });
    await t.test("over http under script-src 'self' 'wasm-unsafe-eval' and connect-src 'none'", async () => {
      const url = `${server.url}tests/browser/model/model.html`;
      const csp = CSP.strict.replace("img-src 'self'", "img-src 'self' data:");  // the page's empty data: favicon
      const { result, problems, violations, close } = await openCheck(browser, url, csp);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.deepEqual(result.predict, expected.predict);
      assert.deepEqual(violations, []);
      assert.deepEqual(problems, []);
      await close();
    });
    await t.test('on a page whose Object.prototype carries AttentionLabModels, and whose element has that id, the shipped model is still the one read', async () => {
      const url = pathToFileURL(path.join(__dirname, 'model', 'model.html')).href;
      const polluted = () => {
        // an attacker's registry, set before any script runs: its entry for the shipped model
        // keeps what is written to it and answers with another model
        const fake = {};
        Object.defineProperty(fake, 'wordnet-small', {
          get: () => ({ format: 'attention-lab-model', version: 1, name: 'wordnet-small' }),
          set: (v) => { window.stolen = v; },
          enumerable: true,
        });
        Object.prototype.AttentionLabModels = fake;  // eslint-disable-line no-extend-native
        document.addEventListener('DOMContentLoaded', () => {
          const el = document.createElement('div');
          el.id = 'AttentionLabModels';
          document.body.append(el);
        });
      };
      const { page, result, problems, close } = await openCheck(browser, url, null, polluted);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.deepEqual(result.names, ['wordnet-small']);
      assert.deepEqual(result.predict, expected.predict);
      assert.equal(await page.evaluate(() => typeof window.stolen), 'undefined', 'the fake registry never saw the model');
      assert.deepEqual(problems, []);
      await close();
    });
  } finally {
    await server.close();
    await browser.close();
  }
});
