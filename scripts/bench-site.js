#!/usr/bin/env node
'use strict';
// npm run bench:site: in headless Chromium, for each lesson page and a page with one of each
// widget: cumulative layout shift, the longest main-thread task during load (and how many
// took over 50 ms) by wall time and by CPU time, overall and after the first contentful paint,
// beside the same page without the script, and the first heatmap painted as a ratio to the first contentful paint;
// the longest task while using every widget (wall and CPU); and from a control change (the causal mask)
// to the repainted heatmap at n = 5, 64 and 256; the trainer's time until an induction head
// forms; the position race's time to finish (RACE_ONLY=1: that row alone); a knock-out click to
// the redrawn view, in <model-attention model> and in <attention-trainer>. Medians; a benchmark, not a test.
// RUNS=n cold loads per page (default 5); PAGES=a,b only pages whose path contains a or b;
// LOAD_ONLY=1 skips the interaction and repaint figures; KNOCKOUT_ONLY=1 gives the knock-out
// figures alone; TRAIN_ONLY=1 the trainer's; COMPARE=<dir> see below (the trainer's figures too:
// each seed on both checkouts in turn).

const path = require('path');
const { pathToFileURL } = require('url');
const { launch, traceTasks, startEveryWidget } = require('../tests/browser/browser.js');
const { useEveryWidget } = require('../tests/browser/use-every-widget.js');

const root = path.resolve(__dirname, '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Seconds from pressing the trainer's Train button (defaults, given seed) to the first reading
 * of an induction score of 0.5 or more, the step, the steps a second and the longest
 * main-thread task by CPU time meanwhile.
 */
async function timeToInduction(browser, seed, dir = root) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const url = `${pathToFileURL(path.join(dir, 'tests', 'browser', 'hosts', 'trainer.html')).href}?tr.seed=${seed}`;
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('attention-trainer').status === 'ready', null, { timeout: 60000 });
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  const trace = await traceTasks(page);
  const start = Date.now();
  await page.click('attention-trainer button:has-text("Train")');
  await page.waitForFunction(() => document.querySelector('attention-trainer').state.formedAt !== null, null, { timeout: 300000, polling: 50 });
  const ms = Date.now() - start;
  const tasks = await trace.stop();
  const s = await page.evaluate(() => document.querySelector('attention-trainer').state);
  await page.close();
  return { seed, ms, step: s.formedAt, runner: s.runner, rate: s.step / (ms / 1000), cpu: Math.max(0, ...tasks.map((x) => x.cpu)) };
}

/**
 * Where a trained induction head's time goes, for a reader who reached the widget before
 * pressing Train (a pointer over it starts its worker): the wall time from Train to the widget's
 * al-head-formed event, and from a Chromium trace the CPU time of the worker per step and of
 * the page's main thread (drawing) per second; beside it the engine alone in node, CPU per step.
 */
async function trainingTime(browser, seed, dir = root) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${pathToFileURL(path.join(dir, 'tests', 'browser', 'hosts', 'trainer.html')).href}?tr.seed=${seed}`);
  await page.waitForFunction(() => document.querySelector('attention-trainer').status === 'ready', null, { timeout: 60000 });
  await page.hover('attention-trainer');
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.waitForFunction(() => document.querySelector('attention-trainer').state.runner === 'worker', null, { timeout: 60000 });
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const complete = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel', '__metadata'] }, transferMode: 'ReportEvents' });
  const formed = page.evaluate(() => new Promise((resolve) => {
    const t0 = performance.now();
    document.addEventListener('al-head-formed', (e) => resolve({ ms: performance.now() - t0, step: e.detail.step }), { once: true });
    document.querySelector('attention-trainer').shadowRoot.querySelector('button.al-primary').click();
  }));
  const f = await formed;
  await cdp.send('Tracing.end');
  await complete;
  await page.close();
  const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const cpu = {}, wall = {};
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || e.tdur === undefined) continue;
    const name = names.get(`${e.pid}:${e.tid}`);
    cpu[name] = (cpu[name] || 0) + e.tdur / 1000;
    wall[name] = (wall[name] || 0) + e.dur / 1000;
  }
  const lab = await require('../index.js').loadAttentionLab();
  const t = lab.createTrainer({ seed });
  const c0 = process.cpuUsage();
  t.step(f.step);
  const c = process.cpuUsage(c0);
  t.dispose();
  // busy: the share of the time to the head that the worker spent in tasks (its CPU, and waits
  // for a core mid-task); the rest it sat idle between tasks.
  return { seed, ...f, busy: (wall['DedicatedWorker thread'] || 0) / f.ms, onCore: (cpu['DedicatedWorker thread'] || 0) / f.ms, worker: (cpu['DedicatedWorker thread'] || 0) / f.step, page: (cpu.CrRendererMain || 0) / (f.ms / 1000), node: (c.user + c.system) / 1000 / f.step };
}

/**
 * <position-race> at its fixed settings (tests/browser/hosts/position-race.html): from pressing
 * Start (its worker started by a pointer over the button first, as a reader's would be) to all
 * five schemes trained 1000 steps and their loss by position read, wall time; and from a
 * Chromium trace the CPU time of the worker and of the page's main thread (its longest task).
 */
async function raceTime(browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(pathToFileURL(path.join(root, 'tests', 'browser', 'hosts', 'position-race.html')).href);
  await page.waitForFunction(() => document.querySelector('position-race').status === 'ready', null, { timeout: 60000 });
  await page.click('position-race button:has-text("Skip the prediction")');
  await page.hover('position-race button:has-text("Start the race")');
  await page.waitForFunction(() => document.querySelector('position-race').state.runner !== null, null, { timeout: 60000 });
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const complete = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel', '__metadata'] }, transferMode: 'ReportEvents' });
  const start = Date.now();
  await page.click('position-race button:has-text("Start the race")');
  await page.waitForFunction(() => document.querySelector('position-race').state.done, null, { timeout: 600000, polling: 100 });
  const ms = Date.now() - start;
  await cdp.send('Tracing.end');
  await complete;
  const s = await page.evaluate(() => document.querySelector('position-race').state);
  await page.close();
  const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const cpu = {};
  let longest = 0;
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || e.tdur === undefined) continue;
    const name = names.get(`${e.pid}:${e.tid}`);
    cpu[name] = (cpu[name] || 0) + e.tdur / 1000;
    if (name === 'CrRendererMain') longest = Math.max(longest, e.tdur / 1000);
  }
  return { ms, state: s, worker: cpu['DedicatedWorker thread'] || 0, page: cpu.CrRendererMain || 0, longest };
}

/** Prints raceTime's figures: the benchmark row of issue 28 (target: under 30 s). */
async function printRace(browser) {
  const r = await raceTime(browser);
  const { formed, lengths, runner } = r.state;
  console.log(`<position-race> (tests/browser/hosts/position-race.html, ${runner}), five schemes x 1,000 steps, from pressing Start to every scheme's induction head (or none formed in 1,000 steps) and its loss by position at 64 and 128 read: ` +
    `${(r.ms / 1000).toFixed(1)} s wall (target 30 s); worker ${(r.worker / 1000).toFixed(1)} s of CPU (${(r.worker / 5000).toFixed(2)} ms a step); page main thread ${(r.page / 1000).toFixed(1)} s of CPU, longest task ${r.longest.toFixed(0)} ms`);
  const step = (x) => (x === null ? 'none' : x);
  for (const [scheme, f] of Object.entries(formed)) {
    const past = [64, 128].map((n) => (typeof lengths[scheme][n] === 'number' ? lengths[scheme][n].toFixed(2) : lengths[scheme][n])).join(' / ');
    console.log(`  ${scheme.padEnd(10)} previous-token head ${String(step(f.previousToken)).padStart(4)}, induction head ${String(step(f.induction)).padStart(4)}; mean loss past 32 at 64 / 128 tokens: ${past}`);
  }
}

const PAGES = [...require('./build-site.js').PAGES.map((p) => `dist/${p.file}`), 'tests/browser/hosts/all-widgets.html'];
const DONE = 'attention-lab bench: loaded';

/**
 * One cold load of a page: cumulative layout shift, the longest main-thread task and the
 * number over 50 ms, first contentful paint, and the first heatmap (or, on pages without
 * one, the first widget) painted. Nothing is evaluated in the page until it has settled
 * (Playwright's own scripts would run as tasks of their own during the load): the page
 * says when it is done on the console.
 */
async function loadFigures(browser, url, width, { bare = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  if (bare) {
    // The same page with attention-lab.js refused: the tasks of the page's own parsing,
    // styles and layout, which the widgets' figures are to be read against.
    await page.route(/attention-lab\.js$/, (r) => r.abort());
    await page.addInitScript(() => {
      const f = window.__f = { longest: 0 };
      new PerformanceObserver((l) => { for (const e of l.getEntries()) f.longest = Math.max(f.longest, e.duration); }).observe({ type: 'longtask', buffered: true });
    });
    const trace = await traceTasks(page, { url });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(2000);
    const f = await page.evaluate(() => window.__f);
    const tasks = await trace.stop();
    f.cpu = Math.max(0, ...tasks.map((x) => x.cpu));
    f.cpuPainted = Math.max(0, ...tasks.filter((x) => x.painted).map((x) => x.cpu));
    await context.close();
    return f;
  }
  await page.addInitScript((done) => {
    const f = window.__f = { cls: 0, longest: 0, over50: 0, first: undefined };
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) f.cls += e.value; }).observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) {
        f.longest = Math.max(f.longest, e.duration);
        if (e.duration > 50) f.over50 += 1;
      }
    }).observe({ type: 'longtask', buffered: true });
    // The widgets a load draws: those within a screen of the viewport (the kit starts the rest
    // when the reader scrolls near them), known from an observer of the same margin.
    const near = new Set();
    document.addEventListener('DOMContentLoaded', () => {
      const io = new IntersectionObserver((es) => { for (const e of es) if (e.isIntersecting) near.add(e.target); }, { rootMargin: '100% 100% 100% 100%' });
      for (const el of document.querySelectorAll('*')) if (el.localName.includes('-')) io.observe(el);
    });
    const settled = () => f.first !== undefined && !f.ended && [...near].every((el) => el.status === 'ready');
    const check = () => {
      if (!settled()) return;
      f.ended = true;
      setTimeout(() => console.log(done), 1500);  // slices of work that go on after the first drawing
    };
    document.addEventListener('al-ready', (e) => {
      if (f.first === undefined && !f.pending && !(document.querySelector('attention-heatmap') && e.target.localName !== 'attention-heatmap')) {
        f.pending = true;
        // Two animation frames after the widget exists: the frame with it has been painted.
        requestAnimationFrame(() => requestAnimationFrame(() => {
          f.first = performance.now();
          check();
        }));
      }
      check();
    });
  }, DONE);
  const done = page.waitForEvent('console', { predicate: (m) => m.text() === DONE, timeout: 60000 });
  const trace = await traceTasks(page, { url });
  await page.goto(url);
  await done;
  const f = await page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return { ...window.__f, fcp: fcp ? fcp.startTime : NaN };
  });
  const tasks = await trace.stop();
  const cpu = tasks.map((x) => x.cpu);
  f.cpu = Math.max(0, ...cpu);
  f.cpuOver50 = cpu.filter((x) => x >= 50).length;
  f.cpuPainted = Math.max(0, ...tasks.filter((x) => x.painted).map((x) => x.cpu));
  await context.close();
  return f;
}

/** The longest main-thread task while a reader uses every widget of the one-of-each page. */
async function interactionLongest(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(pathToFileURL(path.join(root, 'tests', 'browser', 'hosts', 'all-widgets.html')).href);
  await startEveryWidget(page);
  await page.waitForFunction(() => Array.from(document.querySelectorAll('*')).filter((el) => el.localName.includes('-')).every((el) => el.status === 'ready'), null, { timeout: 60000 });
  await page.waitForTimeout(1500);
  const trace = await traceTasks(page);
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longest = Math.max(window.__longest, e.duration); }).observe({ type: 'longtask' });
  });
  await useEveryWidget(page);
  const wall = await page.evaluate(() => window.__longest);
  const cpu = Math.max(0, ...(await trace.stop()).map((x) => x.cpu));
  await context.close();
  return { wall, cpu };
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

// The knock-out (issue 29): lesson 7's #knock on a 64-token text, its question skipped, then a
// head pressed in and out 21 times (each press runs model.ablate and redraws the guesses and
// the loss): the click handler, style and layout, and the next frame callback (target: under 100 ms).
async function printModelKnockout(browser) {
  const k = await knockoutRepaint(browser);
  console.log(`<model-attention> knock-out click -> redrawn guesses and loss, lesson 7, ${k.read} (median of 21): handler (engine + update) ${k.handler.toFixed(2)} ms, + style and layout ${k.layout.toFixed(2)} ms, next frame callback ${k.painted.toFixed(2)} ms (target: under 100 ms)`);
}

async function knockoutRepaint(browser) {
  const lab = await require('../index.js').loadAttentionLab();
  const model = lab.loadModel();
  const text = require('./bench-knockout.js').textOf(model, 64);
  model.dispose();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${pathToFileURL(path.join(root, 'dist', 'lesson-7.html')).href}?knock.text=${encodeURIComponent(text)}&knock.ko=1.1`);
  await page.locator('#knock').scrollIntoViewIfNeeded();  // widgets below the first screen start when scrolled to
  await page.waitForFunction(() => document.querySelector('#knock').status === 'ready' && document.querySelector('#knock').shadowRoot.querySelector('.al-ko-result'), null, { timeout: 30000 });
  const result = await page.evaluate(async () => {
    const shadow = document.querySelector('#knock').shadowRoot;
    shadow.querySelector('.al-predict button.al-skip').click();
    const head = shadow.querySelector('button[aria-label="Knock out layer 1, head 2"]');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const panel = shadow.querySelector('.al-ko-result');
    const handler = [], layout = [], painted = [];
    for (let i = 0; i < 21; i++) {
      await frame();
      const t0 = performance.now();
      head.click();                      // knocks the head out (or puts it back): the engine runs, the view redraws
      const t1 = performance.now();
      panel.getBoundingClientRect();     // forces the style and layout the frame needs
      const t2 = performance.now();
      await frame();
      handler.push(t1 - t0);
      layout.push(t2 - t0);
      painted.push(performance.now() - t0);
    }
    const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
    return { handler: med(handler), layout: med(layout), painted: med(painted), read: Array.from(shadow.querySelectorAll('p'), (x) => x.textContent).find((t) => / tokens, causal/.test(t)).match(/\d+ tokens/)[0] };
  });
  await context.close();
  return result;
}

/**
 * <attention-trainer>'s knock-out mode: from a click on a head's button to the next frame after
 * the new loss is on screen (the runner's Trainer.ablate, the message there and back, the redraw),
 * on the trainer host trained to its 600 steps; medians of 15 clicks, in the worker and on the page.
 */
async function knockoutRedraw(browser, worker) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(pathToFileURL(path.join(root, 'tests', 'browser', 'hosts', 'trainer.html')).href);
  await page.waitForFunction(() => document.querySelector('attention-trainer').status === 'ready', null, { timeout: 60000 });
  if (!worker) await page.evaluate(() => document.querySelector('attention-trainer').setAttribute('worker', 'off'));
  await page.click('attention-trainer button:has-text("Skip the prediction")');
  await page.click('attention-trainer button:has-text("Train")');
  await page.waitForFunction(() => { const s = document.querySelector('attention-trainer').state; return !s.running && s.step >= 600; }, null, { timeout: 300000, polling: 100 });
  await page.click('attention-trainer .al-ko-predict button:has-text("Skip the prediction")');
  await page.waitForFunction(() => document.querySelector('attention-trainer').state.knockout !== null, null, { timeout: 60000 });
  const r = await page.evaluate(async () => {
    const el = document.querySelector('attention-trainer');
    const result = el.shadowRoot.querySelector('.al-ko-result');
    const times = [];
    for (let i = 0; i < 15; i++) {
      const [layer, head] = [[1, 0], [1, 1], [0, 1]][i % 3];
      times.push(await new Promise((resolve) => {
        const t0 = performance.now();
        const seen = new MutationObserver(() => {
          seen.disconnect();
          requestAnimationFrame(() => resolve(performance.now() - t0));
        });
        seen.observe(result, { childList: true, characterData: true, subtree: true });
        el.shadowRoot.querySelector(`.al-ko-head[data-layer="${layer}"][data-head="${head}"]`).click();
      }));
    }
    return { times, runner: el.state.runner };
  });
  await page.close();
  return { runner: r.runner, median: median(r.times), max: Math.max(...r.times) };
}

(async () => {
  const browser = await launch();
  try {
    // RACE_ONLY=1: the race's row alone
    if (process.env.RACE_ONLY) {
      await printRace(browser);
      return;
    }
    if (process.env.KNOCKOUT_ONLY) {
      await printModelKnockout(browser);
      for (const worker of [true, false]) {
        const k = await knockoutRedraw(browser, worker);
        console.log(`<attention-trainer> knock-out click -> new loss on screen, next frame (${k.runner}): median ${k.median.toFixed(1)} ms, longest ${k.max.toFixed(1)} ms of 15`);
      }
      return;
    }
    const runs = Number(process.env.RUNS || 5);
    // COMPARE=<another checkout with a build> loads its pages in the same run, alternating
    // with this one's, so a change is measured side by side on the same (noisy) machine.
    const roots = process.env.COMPARE ? [['compare', path.resolve(process.env.COMPARE)], ['this', root]] : [['', root]];
    if (!process.env.TRAIN_ONLY) {
      console.log(`page load, median of ${runs} cold loads from file:// (CLS: cumulative layout shift; longest task on the main thread by wall time (longtask API: 0 when none is over 50 ms), and how many over 50 ms; the same by CPU time from a Chromium trace, which waiting for a core does not inflate; after paint: the longest task by CPU that ends after the first contentful paint (the tasks before it build the page's first frame, with nothing on screen to use yet; Lighthouse's Total Blocking Time counts from there too); page alone: the longest task of the same page with attention-lab.js refused, wall / CPU, and by CPU after its first paint; first heatmap painted / first contentful paint)`);
      if (process.env.COMPARE) console.log(`compare: ${roots[0][1]}; this: ${root}`);
      console.log(`page${' '.repeat(process.env.COMPARE ? 44 : 36)}width    CLS  longest task  >50ms  longest CPU  >=50ms  after paint  page alone wall / CPU / after paint  FCP ms  first heatmap ms  ratio`);
      for (const width of [1280, 390]) {
        for (const rel of PAGES.filter((p) => !process.env.PAGES || process.env.PAGES.split(',').some((w) => p.includes(w)))) {
          const figures = roots.map(() => []), bare = [];
          for (let i = 0; i < runs; i++) {
            for (const [k, [, dir]] of roots.entries()) figures[k].push(await loadFigures(browser, pathToFileURL(path.join(dir, rel)).href, width));
            bare.push(await loadFigures(browser, pathToFileURL(path.join(root, rel)).href, width, { bare: true }));
          }
          for (const [k, [label]] of roots.entries()) {
            const m = (key) => median(figures[k].map((f) => f[key]));
            const ratio = median(figures[k].map((f) => f.first / f.fcp));
            const name = label ? `${rel} (${label})` : rel;
            console.log(`${name.padEnd(process.env.COMPARE ? 48 : 40)}${String(width).padStart(5)}  ${m('cls').toFixed(3)}  ${m('longest').toFixed(0).padStart(9)} ms  ${String(m('over50')).padStart(5)}  ${m('cpu').toFixed(0).padStart(8)} ms  ${String(m('cpuOver50')).padStart(6)}  ${m('cpuPainted').toFixed(0).padStart(8)} ms  ${median(bare.map((f) => f.longest)).toFixed(0).padStart(12)} / ${median(bare.map((f) => f.cpu)).toFixed(0).padStart(3)} / ${median(bare.map((f) => f.cpuPainted)).toFixed(0).padStart(3)} ms  ${m('fcp').toFixed(0).padStart(6)}  ${m('first').toFixed(0).padStart(16)}  ${ratio.toFixed(2)}`);
          }
        }
      }
      if (process.env.LOAD_ONLY) return;
      const used = await interactionLongest(browser);
      console.log(`longest main-thread task while using every widget (tests/browser/hosts/all-widgets.html): ${used.wall.toFixed(0)} ms wall (0: none over 50), ${used.cpu.toFixed(0)} ms of CPU`);
    }
    // The trainer's figures, each seed on every checkout in turn (COMPARE: the other first).
    const label = (name) => (name ? ` [${name}]` : '');
    const trains = [];
    for (let seed = 1; seed <= 3; seed++) for (const [name, dir] of roots) trains.push({ name, ...await timeToInduction(browser, seed, dir) });
    console.log('<attention-trainer> at its defaults (tests/browser/hosts/trainer.html), from pressing Train to the first induction score of 0.5 or more:');
    for (const t of trains) console.log(`  seed ${t.seed}${label(t.name)} (${t.runner}): ${(t.ms / 1000).toFixed(1)} s, step ${t.step}, ${t.rate.toFixed(0)} steps a second, longest main-thread task ${t.cpu.toFixed(0)} ms of CPU`);
    console.log('  the same with the worker started before Train (a pointer over the widget), to its al-head-formed event; CPU per step of the worker and of the engine alone in node, and of the page\'s main thread per second:');
    for (let seed = 1; seed <= 3; seed++) {
      for (const [name, dir] of roots) {
        const t = await trainingTime(browser, seed, dir);
        console.log(`  seed ${t.seed}${label(name)}: ${(t.ms / 1000).toFixed(2)} s to step ${t.step} (${(t.step / (t.ms / 1000)).toFixed(0)} steps a second); worker ${t.worker.toFixed(2)} ms of CPU a step, node ${t.node.toFixed(2)} (ratio ${(t.worker / t.node).toFixed(2)}); the worker in tasks ${(100 * t.busy).toFixed(0)}% of the time, on a core ${(100 * t.onCore).toFixed(0)}%; page ${t.page.toFixed(0)} ms of CPU a second`);
      }
    }
    if (process.env.TRAIN_ONLY) return;
    await printRace(browser);
    for (const worker of [true, false]) {
      const k = await knockoutRedraw(browser, worker);
      console.log(`<attention-trainer> knock-out click -> new loss on screen, next frame (${k.runner}): median ${k.median.toFixed(1)} ms, longest ${k.max.toFixed(1)} ms of 15`);
    }
    console.log('causal-mask toggle -> repainted heatmap (median of 21):');
    for (const n of [5, 64, 256]) {
      const r = await repaint(browser, n);
      console.log(`  n = ${String(n).padStart(3)} (${r.mode}): handler (engine + update) ${r.handler.toFixed(2)} ms, ` +
        `+ style and layout ${r.layout.toFixed(2)} ms, next frame callback ${r.painted.toFixed(2)} ms`);
    }
    await printModelKnockout(browser);
  } finally {
    await browser.close();
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
