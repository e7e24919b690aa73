'use strict';
// How the classic script and the package load in someone else's page: strict CSP and
// Trusted Types, WebAssembly blocked, a Web Worker, and a bundler resolving the package.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { launch, watchedPage, sendPolicy, openSettled } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../node/lab.js');

const root = path.resolve(__dirname, '..', '..');
const Q = [[1, 0, 2]], K = [[1, 1, 0], [0, 2, 1]], V = [[1, 2], [3, 4]];

async function nodeResult() {
  const r = (await loadAttentionLab()).attention(Q, K, V);
  return { weights: Array.from(r.weights.data), output: Array.from(r.output.data) };
}

/** Opens `url` with `csp` sent as the page's Content-Security-Policy header. */
async function openWithPolicy(browser, url, csp) {
  const watched = await watchedPage(browser);
  await sendPolicy(watched.page, url, csp);
  await watched.page.goto(url);
  await watched.page.waitForFunction(() => window.loadResult !== undefined, null, { timeout: 20000 });
  return { ...watched, result: await watched.page.evaluate(() => window.loadResult), violations: await watched.page.evaluate(() => window.violations) };
}

test('the engine loads without fetching and without a single CSP or Trusted Types complaint', async (t) => {
  const browser = await launch();
  const server = await startServer({ root });
  const expected = await nodeResult();
  const url = `${server.url}tests/browser/loading/engine.html`;
  try {
    await t.test("under script-src 'self' 'wasm-unsafe-eval', connect-src 'none' and require-trusted-types-for 'script'", async () => {
      const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'none'; " +
        "img-src 'self' data:; require-trusted-types-for 'script'";
      const { result, violations, problems, close } = await openWithPolicy(browser, url, csp);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(result.same, true, 'every call shares one engine');
      assert.deepEqual(result.weights, expected.weights);
      assert.deepEqual(result.output, expected.output);
      assert.deepEqual(violations, []);
      assert.deepEqual(problems, []);
      await close();
    });
    await t.test("without 'wasm-unsafe-eval' the load fails once, with code wasm-blocked and a plain message", async () => {
      const csp = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'none'; img-src 'self' data:";
      const { result, violations, problems, close } = await openWithPolicy(browser, url, csp);
      assert.equal(result.ok, false);
      assert.equal(result.isError, true);
      assert.equal(result.code, 'wasm-blocked');
      assert.match(result.message, /security settings block WebAssembly/);
      assert.doesNotMatch(result.message, /Aborted|ASSERTIONS|CompileError/);
      assert.equal(result.causeName, 'CompileError');
      assert.equal(result.same, true, 'later calls return the same rejected promise: no retry per widget');
      // The browser reports its own refusal, once: one compile attempt per page.
      assert.equal(violations.length, 1, violations.join('\n'));
      assert.match(violations[0], /script-src/);
      assert.ok(problems.every((p) => /WebAssembly/.test(p) && /unsafe-eval/.test(p)), problems.join('\n'));
      assert.ok(problems.length <= 1, problems.join('\n'));
      await close();
    });
  } finally {
    await server.close();
    await browser.close();
  }
});

test('the classic script runs the engine inside a Web Worker', async () => {
  const browser = await launch();
  const server = await startServer({ root });
  const expected = await nodeResult();
  try {
    const { page, problems, close } = await watchedPage(browser);
    await page.goto(`${server.url}tests/browser/loading/worker.html`);
    await page.waitForFunction(() => window.workerResults.imported && window.workerResults.direct, null, { timeout: 20000 });
    const r = await page.evaluate(() => window.workerResults);
    assert.equal(r.imported.ok, true, r.imported.message);
    assert.deepEqual(r.imported.weights, expected.weights);
    assert.deepEqual(r.imported.output, expected.output);
    assert.equal(r.direct.ok, true, r.direct.message);
    assert.deepEqual(problems, []);
    await close();
  } finally {
    await server.close();
    await browser.close();
  }
});

test("a browser bundle of import { loadAttentionLab } from 'attention-lab' needs no node built-ins and runs", async () => {
  const esbuild = require('esbuild');
  const dir = path.join(root, 'build', 'bundle-consumer');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  // The package as an author installs it: a folder in node_modules, resolved through "exports".
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'attention-lab'), 'dir');
  fs.copyFileSync(path.join(__dirname, 'loading', 'consumer.mjs'), path.join(dir, 'consumer.mjs'));
  await esbuild.build({
    entryPoints: [path.join(dir, 'consumer.mjs')], absWorkingDir: dir, bundle: true, platform: 'browser',
    format: 'iife', outfile: path.join(dir, 'consumer.js'), logLevel: 'silent',
  });
  fs.writeFileSync(path.join(dir, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bundled</title>' +
    '<script src="consumer.js"></script></head><body></body></html>');
  const browser = await launch();
  const server = await startServer({ root });
  const expected = await nodeResult();
  try {
    const { page, problems, close } = await watchedPage(browser);
    await page.goto(`${server.url}build/bundle-consumer/index.html`);
    await page.waitForFunction(() => window.bundleResult !== undefined, null, { timeout: 20000 });
    const r = await page.evaluate(() => window.bundleResult);
    assert.equal(r.ok, true, r.message);
    assert.deepEqual(r.weights, expected.weights);
    assert.deepEqual(r.output, expected.output);
    assert.deepEqual(problems, []);
    await close();
  } finally {
    await server.close();
    await browser.close();
  }
});

test('the widget in view is drawn first whatever its place in the page, the others when the reader comes near, in page order', async () => {
  const browser = await launch();
  const server = await startServer({ root });
  try {
    const { page, problems, close } = await watchedPage(browser, { width: 1280, height: 900 });
    await page.goto(`${server.url}tests/browser/hosts/load-order.html`);
    // The one widget in view (last in the page) draws; the others, a spacer taller than two
    // screens below it, wait for the reader.
    await page.waitForFunction(() => document.getElementById('in-view').status === 'ready', null, { timeout: 60000 });
    await page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 5000 })));
    assert.deepEqual((await page.evaluate(() => window.loadOrder)).map((r) => r.id), ['in-view']);
    // Scrolled to the bottom, all three come into view together: they draw in page order.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForFunction(() => window.loadOrder.length === 4, null, { timeout: 60000 });
    assert.deepEqual((await page.evaluate(() => window.loadOrder)).map((r) => r.id), ['in-view', 'below-1', 'below-2', 'below-3'],
      'the one widget in view first, then the others in page order');
    assert.deepEqual(problems, []);
    await close();
  } finally {
    await server.close();
    await browser.close();
  }
});

test('a widget far below the first screen does no work until the reader scrolls near it; then it draws', async () => {
  const browser = await launch();
  const server = await startServer({ root });
  try {
    const { page, problems, close } = await watchedPage(browser, { width: 1280, height: 900 });
    await page.goto(`${server.url}tests/browser/hosts/far-below.html`);
    // Both widgets of the first screen draw; before the change the far one came next, in page order.
    await page.waitForFunction(() => ['near', 'near-2'].every((id) => document.getElementById(id).status === 'ready'), null, { timeout: 60000 });
    // The page goes idle (the browser runs idle callbacks only when no task is waiting), twice.
    const idle = () => page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 10000 })));
    await idle();
    await idle();
    const far = () => page.evaluate(() => {
      const el = document.getElementById('far');
      const frame = el.shadowRoot.querySelector('.al-frame');
      return { status: el.status, children: Array.from(frame.children, (c) => c.className), order: window.loadOrder.map((r) => r.id) };
    });
    // Which of the two on the first screen finishes first is not this test's business (the
    // order test above checks turns): only that the far one has not drawn.
    const sorted = (r) => ({ ...r, order: [...r.order].sort() });
    assert.deepEqual(sorted(await far()), { status: 'loading', children: ['al-loading'], order: ['near', 'near-2'] },
      'the far widget shows only its loading line: no view built, no al-ready');
    // Scrolled within a screen of it (not onto it), it starts, and draws.
    await page.evaluate(() => {
      const r = document.getElementById('far').getBoundingClientRect();
      window.scrollTo(0, window.scrollY + r.top - 1.5 * window.innerHeight);
    });
    await page.waitForFunction(() => document.getElementById('far').status === 'ready', null, { timeout: 60000 });
    const order = (await far()).order;
    assert.deepEqual(order.slice(0, 2).sort(), ['near', 'near-2']);
    assert.equal(order[2], 'far', 'the far widget draws last, once scrolled near');
    assert.equal(order.length, 3);
    assert.deepEqual(problems, []);
    await close();
  } finally {
    await server.close();
    await browser.close();
  }
});

test('the shipped model\'s script is fetched from beside the kit only when a <model-attention model> comes near, once for two', async () => {
  const browser = await launch();
  const server = await startServer({ root });
  try {
    const { page, problems, close } = await watchedPage(browser, { width: 1280, height: 900 });
    const fetched = [];
    page.on('request', (r) => { if (/attention-lab-model\.js$/.test(r.url())) fetched.push(new URL(r.url()).pathname); });
    await page.goto(`${server.url}tests/browser/hosts/model-far.html`);
    await page.waitForFunction(() => document.getElementById('near').status === 'ready', null, { timeout: 60000 });
    const idle = () => page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 10000 })));
    await idle();
    await idle();
    const state = () => page.evaluate(() => ({
      registered: Object.prototype.hasOwnProperty.call(window, 'AttentionLabModels'),
      status: ['far', 'far-2'].map((id) => document.getElementById(id).status),
    }));
    assert.deepEqual(await state(), { registered: false, status: ['loading', 'loading'] });
    assert.deepEqual(fetched, [], 'nothing of the model is fetched while both elements are far below');
    // Scrolled within a screen of the first (not onto it): both start, sharing one fetch.
    await page.evaluate(() => {
      const r = document.getElementById('far').getBoundingClientRect();
      window.scrollTo(0, window.scrollY + r.top - 1.5 * window.innerHeight);
    });
    await page.waitForFunction(() => ['far', 'far-2'].every((id) => document.getElementById(id).status === 'ready'), null, { timeout: 120000 });
    assert.deepEqual(fetched, ['/dist/attention-lab-model.js']);
    assert.deepEqual((await state()).registered, true);
    // The model read the element's text: its five guesses are shown.
    assert.equal(await page.$eval('#far-2', (el) => el.shadowRoot.querySelectorAll('.al-model-guesses li').length), 5);
    assert.deepEqual(problems, []);
    await close();
  } finally {
    await server.close();
    await browser.close();
  }
});

test('the page text paints before the deferred kit has arrived, each widget in the space it will need, and nothing shifts when it draws', async () => {
  const browser = await launch();
  const server = await startServer({ root });
  try {
    for (const [file, width] of [['dist/lesson-1.html', 390], ['dist/lesson-1.html', 1280], ['dist/lesson-7.html', 390], ['tests/browser/hosts/far-below.html', 1280]]) {
      const { page, problems, close } = await watchedPage(browser, { width, height: 900 });
      await page.addInitScript(() => {
        window.__shift = 0;
        new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.__shift += e.value; }).observe({ type: 'layout-shift', buffered: true });
      });
      // The kit (and a model's script) held back until the text has painted.
      let release;
      const held = new Promise((resolve) => { release = resolve; });
      await page.route(/attention-lab(-model)?\.js$/, async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${server.url}${file}`, { waitUntil: 'commit' });
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length === 1, null, { timeout: 60000 });
      const before = await page.evaluate(() => ({
        defined: customElements.get('attention-heatmap') !== undefined || customElements.get('model-attention') !== undefined,
        heading: document.querySelector('h1').getBoundingClientRect().height > 0,
        // The first widget's held space: what it will show its loading line in once defined.
        first: (() => {
          const el = Array.from(document.querySelectorAll('main *')).find((e) => e.localName.includes('-') && e.checkVisibility());
          return { tag: el.localName, height: el.getBoundingClientRect().height };
        })(),
      }));
      assert.equal(before.defined, false, `${file}: painted before the kit ran`);
      assert.equal(before.heading, true);
      assert.ok(before.first.height > 100, `${file} at ${width} px: <${before.first.tag}> holds ${before.first.height} px before the kit runs`);
      release();
      // The moment the element is defined (its loading line shown, the engine not ready yet).
      const defined = await (await page.waitForFunction((tag) => {
        if (!customElements.get(tag)) return false;
        const el = Array.from(document.querySelectorAll(tag)).find((e) => e.checkVisibility());
        return { status: el.status, height: el.getBoundingClientRect().height };
      }, before.first.tag, { timeout: 60000, polling: 'raf' })).jsonValue();
      assert.equal(defined.status, 'loading');
      assert.ok(Math.abs(defined.height - before.first.height) <= 1,
        `${file} at ${width} px: <${before.first.tag}> holds ${before.first.height} px before the kit runs and ${defined.height} px once defined`);
      // On a phone the first widget may sit below the first screen: the reader scrolls to it.
      await page.evaluate((tag) => Array.from(document.querySelectorAll(tag)).find((e) => e.checkVisibility()).scrollIntoView({ block: 'nearest' }), before.first.tag);
      await page.waitForFunction((tag) => Array.from(document.querySelectorAll(tag)).find((e) => e.checkVisibility()).status === 'ready', before.first.tag, { timeout: 120000 });
      const shift = await page.evaluate(() => window.__shift);
      assert.ok(shift <= 0.1, `${file} at ${width} px: cumulative layout shift ${shift}, at most 0.1`);
      assert.deepEqual(problems, []);
      await close();
    }
  } finally {
    await server.close();
    await browser.close();
  }
});
