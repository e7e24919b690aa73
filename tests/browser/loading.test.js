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

test('the widget in view is drawn first whatever its place in the page, then the others in page order', async () => {
  const browser = await launch();
  const server = await startServer({ root });
  try {
    const { page, problems, close } = await openSettled(browser, `${server.url}tests/browser/hosts/load-order.html`);
    const order = await page.evaluate(() => window.loadOrder);
    assert.deepEqual(order.map((r) => r.id), ['in-view', 'below-1', 'below-2', 'below-3'],
      'the one widget in view (last in the page) first, then the others in page order');
    assert.deepEqual(problems, []);
    await close();
  } finally {
    await server.close();
    await browser.close();
  }
});
