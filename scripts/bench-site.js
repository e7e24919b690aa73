#!/usr/bin/env node
'use strict';
// npm run bench:site: in headless Chromium, the time from opening dist/index.html to the
// first heatmap painted, and from a control change (the causal mask) to the repainted
// heatmap at n = 5, 64 and 256. Medians; a benchmark, not a test.

const path = require('path');
const { pathToFileURL } = require('url');
const { launch } = require('../tests/browser/browser.js');

const root = path.resolve(__dirname, '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function firstPaint(browser) {
  const times = [];
  for (let i = 0; i < 7; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(() => {
      document.addEventListener('al-ready', (e) => {
        if (e.target.localName !== 'attention-heatmap' || window.__firstHeatmap) return;
        // Two animation frames after the cells exist: the frame with them has been painted.
        requestAnimationFrame(() => requestAnimationFrame(() => { window.__firstHeatmap = performance.now(); }));
      });
    });
    await page.goto(pathToFileURL(path.join(root, 'dist', 'index.html')).href);
    await page.waitForFunction(() => window.__firstHeatmap !== undefined, null, { timeout: 20000 });
    times.push(await page.evaluate(() => window.__firstHeatmap));
    await context.close();
  }
  return median(times);
}

async function repaint(browser, n) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${pathToFileURL(path.join(root, 'tests', 'browser', 'perf.html')).href}?n=${n}`);
  await page.waitForFunction(() => document.querySelector('#perf').dataset.ready === 'true', null, { timeout: 30000 });
  const result = await page.evaluate(async () => {
    const box = document.querySelector('#perf input[type="checkbox"]');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const heatmap = document.querySelector('#perf .al-heatmap-wrap');
    const handler = [], layout = [], painted = [];
    for (let i = 0; i < 21; i++) {
      await frame();
      const t0 = performance.now();
      box.click();                       // the change handler recomputes and updates the cells
      const t1 = performance.now();
      heatmap.getBoundingClientRect();   // forces the style and layout the frame needs
      const t2 = performance.now();
      await frame();                     // the next frame callback (waits for vsync)
      handler.push(t1 - t0);
      layout.push(t2 - t0);
      painted.push(performance.now() - t0);
    }
    const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
    const cells = document.querySelectorAll('#perf [role="gridcell"]').length;
    return { handler: med(handler), layout: med(layout), painted: med(painted), mode: cells ? `${cells} DOM cells` : 'canvas' };
  });
  await context.close();
  return result;
}

(async () => {
  const browser = await launch();
  try {
    console.log(`first heatmap painted after opening dist/index.html: ${(await firstPaint(browser)).toFixed(0)} ms (median of 7 cold loads)`);
    console.log('causal-mask toggle -> repainted heatmap (median of 21):');
    for (const n of [5, 64, 256]) {
      const r = await repaint(browser, n);
      console.log(`  n = ${String(n).padStart(3)} (${r.mode}): handler (engine + update) ${r.handler.toFixed(2)} ms, ` +
        `+ style and layout ${r.layout.toFixed(2)} ms, next frame callback ${r.painted.toFixed(2)} ms`);
    }
  } finally {
    await browser.close();
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
