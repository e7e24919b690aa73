#!/usr/bin/env node
'use strict';
// npm run bench:site: in headless Chromium, for each lesson page and a page with one of each
// widget: cumulative layout shift, the longest main-thread task during load, and the first
// heatmap painted as a ratio to the first contentful paint; the longest task while using
// every widget; and from a control change (the causal mask) to the repainted heatmap at
// n = 5, 64 and 256. Medians; a benchmark, not a test.

const path = require('path');
const { pathToFileURL } = require('url');
const { launch } = require('../tests/browser/browser.js');

const root = path.resolve(__dirname, '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const PAGES = ['dist/index.html', 'dist/lesson-1.html', 'dist/lesson-2.html', 'dist/lesson-3.html', 'dist/lesson-4.html', 'tests/browser/hosts/all-widgets.html'];

/**
 * One cold load of a page: cumulative layout shift, the longest main-thread task, first
 * contentful paint, and the first heatmap (or, on pages without one, the first widget) painted.
 */
async function loadFigures(browser, url, width) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__f = { cls: 0, longest: 0, first: undefined };
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.__f.cls += e.value; }).observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__f.longest = Math.max(window.__f.longest, e.duration); }).observe({ type: 'longtask', buffered: true });
    document.addEventListener('al-ready', (e) => {
      if (window.__f.first !== undefined || window.__f.pending) return;
      if (document.querySelector('attention-heatmap') && e.target.localName !== 'attention-heatmap') return;
      window.__f.pending = true;
      // Two animation frames after the widget exists: the frame with it has been painted.
      requestAnimationFrame(() => requestAnimationFrame(() => { window.__f.first = performance.now(); }));
    });
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__f.first !== undefined
    && Array.from(document.querySelectorAll('*')).filter((el) => el.localName.includes('-')).every((el) => el.status === 'ready'), null, { timeout: 60000 });
  await page.waitForTimeout(1500);  // slices of work that go on after the first drawing
  const f = await page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return { ...window.__f, fcp: fcp ? fcp.startTime : NaN };
  });
  await context.close();
  return f;
}

/** The longest main-thread task while a reader uses every widget of the one-of-each page. */
async function interactionLongest(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(pathToFileURL(path.join(root, 'tests', 'browser', 'hosts', 'all-widgets.html')).href);
  await page.waitForFunction(() => Array.from(document.querySelectorAll('*')).filter((el) => el.localName.includes('-')).every((el) => el.status === 'ready'), null, { timeout: 60000 });
  await page.waitForTimeout(1500);
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longest = Math.max(window.__longest, e.duration); }).observe({ type: 'longtask' });
  });
  const clicks = ['#w-stepper button:has-text("Next")', '#w-stepper button:has-text("arrow")', '#w-heatmap label:has-text("causal mask")',
    '#w-worked button:has-text("mostly")', '#w-heads label:has-text("forget the head transpose")', '#w-padding label:has-text("forget the padding mask")',
    '#w-softmax button:has-text("NaN")', '#w-shapes label:has-text("quiz")'];
  for (const selector of clicks) await page.click(selector);
  await page.selectOption('#w-heads select', '8');
  await page.selectOption('#w-scaling select', '2');
  await page.fill('#w-scaling input[type="number"]', '7');
  await page.press('#w-scaling input[type="number"]', 'Tab');
  await page.waitForTimeout(4000);
  const longest = await page.evaluate(() => window.__longest);
  await context.close();
  return longest;
}

async function repaint(browser, n) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${pathToFileURL(path.join(root, 'tests', 'browser', 'perf.html')).href}?n=${n}`);
  await page.waitForFunction(() => document.querySelector('#perf').status === 'ready', null, { timeout: 30000 });
  const result = await page.evaluate(async () => {
    const shadow = document.querySelector('#perf').shadowRoot;
    const box = shadow.querySelector('input[type="checkbox"]');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const heatmap = shadow.querySelector('.al-heatmap-wrap');
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
    const cells = shadow.querySelectorAll('[role="gridcell"]').length;
    return { handler: med(handler), layout: med(layout), painted: med(painted), mode: cells ? `${cells} DOM cells` : 'canvas' };
  });
  await context.close();
  return result;
}

(async () => {
  const browser = await launch();
  try {
    const runs = Number(process.env.RUNS || 5);
    console.log(`page load, median of ${runs} cold loads from file:// (CLS: cumulative layout shift; longest task on the main thread; first heatmap painted / first contentful paint)`);
    console.log('page                                    width    CLS  longest task  FCP ms  first heatmap ms  ratio');
    for (const width of [1280, 390]) {
      for (const rel of PAGES) {
        const figures = [];
        for (let i = 0; i < runs; i++) figures.push(await loadFigures(browser, pathToFileURL(path.join(root, rel)).href, width));
        const m = (key) => median(figures.map((f) => f[key]));
        const ratio = median(figures.map((f) => f.first / f.fcp));
        console.log(`${rel.padEnd(40)}${String(width).padStart(5)}  ${m('cls').toFixed(3)}  ${m('longest').toFixed(0).padStart(9)} ms  ${m('fcp').toFixed(0).padStart(6)}  ${m('first').toFixed(0).padStart(16)}  ${ratio.toFixed(2)}`);
      }
    }
    console.log(`longest main-thread task while using every widget (tests/browser/hosts/all-widgets.html): ${(await interactionLongest(browser)).toFixed(0)} ms`);
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
