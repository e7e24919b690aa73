'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, watchedPage } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');

const root = path.resolve(__dirname, '..', '..');

test('the classic-script build runs the engine in Chromium from file:// and over http', async (t) => {
  const browser = await launch();
  const server = await startServer({ root });
  try {
    const urls = {
      'file://': pathToFileURL(path.join(root, 'tests', 'browser', 'engine.html')).href,
      http: `${server.url}tests/browser/engine.html`,
    };
    for (const [how, url] of Object.entries(urls)) {
      await t.test(how, async () => {
        const { page, problems, close } = await watchedPage(browser);
        await page.goto(url);
        await page.waitForFunction(() => window.engineResult !== undefined, null, { timeout: 15000 });
        const r = await page.evaluate(() => window.engineResult);
        assert.equal(r.failed, undefined, r.failed);
        assert.ok(Math.abs(r.weights[0] - 0.6698) < 5e-5);
        assert.ok(Math.abs(r.output[0] - 6.6976) < 5e-4 && Math.abs(r.output[1] - 1.9814) < 5e-4);
        assert.deepEqual(r.fast, r.output, 'the workspace path gives the same numbers');
        assert.equal(r.error, 'attention: K has d_k = 2 but Q has d_k = 3');
        assert.equal(await page.textContent('#out'), '6.6976, 1.9814');
        assert.deepEqual(problems, []);
        await close();
      });
    }
  } finally {
    await server.close();
    await browser.close();
  }
});
