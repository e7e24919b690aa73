#!/usr/bin/env node
'use strict';
// Where the main thread's time goes while a page loads: node scripts/profile-load.js [page]
// [width] (default dist/lesson-1.html at 1280 px; RUNS=n cold loads, default 2). Builds an
// unminified copy of the bundle into build/profile/ (same pages beside it), loads the page in
// headless Chromium with a trace (task boundaries and each task's CPU time, which other
// processes on a busy machine do not inflate) and the sampling profiler (which function, so
// which widget), and prints every main-thread task over 8 ms of CPU in order, labelled:
// script evaluation, engine start, a widget's setup, style/layout/paint, ... A tool for
// finding long tasks, not a benchmark (npm run bench:site prints the figures). FUNCS=1 adds,
// under each task, the functions that the sampling profiler caught most often at the top.
// FUNCS=incl lists functions by samples anywhere on the stack instead; COMPILE=1 prints the
// V8 compile time inside each task; BREAKDOWN=1 sums the trace events inside tasks over 30 ms;
// BARE=1 profiles the page alone (attention-lab.js refused).

const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch } = require('../tests/browser/browser.js');
const { formulaPlugin, wasmPlugin, shrinkPlugin, COMPILE_HINT } = require('./bundle-plugins.js');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'build', 'profile');
const MIN_CPU_MS = 8;

async function prepare() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.cpSync(path.join(root, 'dist'), path.join(out, 'dist'), { recursive: true });
  fs.cpSync(path.join(root, 'tests', 'browser', 'hosts'), path.join(out, 'tests', 'browser', 'hosts'), { recursive: true });
  await require('esbuild').build({
    entryPoints: [path.join(root, 'web', 'src', 'browser.js')], bundle: true, platform: 'browser', format: 'iife',
    minify: false, keepNames: true, logLevel: 'warning', outfile: path.join(out, 'dist', 'attention-lab.js'), plugins: [formulaPlugin, wasmPlugin, shrinkPlugin], banner: { js: COMPILE_HINT.trim() },
  });
  // esbuild marks each module with a "// path" line: bundle line -> source file.
  const marks = [];
  fs.readFileSync(path.join(out, 'dist', 'attention-lab.js'), 'utf8').split('\n').forEach((line, i) => {
    const m = /^ {2}\/\/ (\S+\.m?js)$/.exec(line);
    if (m) marks.push([i + 1, m[1].replace(/^web\/src\//, '')]);
  });
  return (line) => {
    let file = '';
    for (const [start, name] of marks) if (start <= line) file = name;
    return file;
  };
}

const LABELLED = new Set(['setup', 'measure', 'startEngine', 'decodeEmbedded', 'examples', 'attention', 'explainRow', 'multiHeadAttention']);

async function profileOnce(browser, url, width, sourceOf) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const traced = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'v8.execute', 'toplevel', 'v8', 'disabled-by-default-v8.compile'] }, transferMode: 'ReportEvents' });
  await cdp.send('Profiler.start');
  // Nothing is evaluated in the page while it loads: it says when it is done on the console.
  await page.addInitScript(() => {
    // The widgets a load draws: those within a screen of the viewport (the kit starts the rest
    // when the reader scrolls near them).
    const near = new Set();
    document.addEventListener('DOMContentLoaded', () => {
      const io = new IntersectionObserver((es) => { for (const e of es) if (e.isIntersecting) near.add(e.target); }, { rootMargin: '100% 100% 100% 100%' });
      for (const el of document.querySelectorAll('*')) if (el.localName.includes('-')) io.observe(el);
    });
    document.addEventListener('al-ready', () => {
      if (!window.__alDone && [...near].every((el) => el.status === 'ready')) {
        window.__alDone = true;
        setTimeout(() => console.log('attention-lab profile: loaded'), 1500);
      }
    });
  });
  // BARE=1: the page alone, attention-lab.js refused (what the host page costs by itself).
  if (process.env.BARE) await page.route(/attention-lab\.js$/, (route) => route.abort());
  const loaded = process.env.BARE ? null : page.waitForEvent('console', { predicate: (m) => m.text() === 'attention-lab profile: loaded', timeout: 120000 });
  await page.goto(url);
  if (loaded) await loaded;
  else await page.waitForTimeout(2000);
  const { profile } = await cdp.send('Profiler.stop');
  await cdp.send('Tracing.end');
  await traced;
  await context.close();

  const parse = events.find((e) => e.name === 'ParseHTML' && e.args && e.args.beginData && String(e.args.beginData.url).startsWith('file:'));
  const main = events.find((e) => e.pid === parse.pid && e.name === 'thread_name' && e.args.name === 'CrRendererMain');
  const onMain = events.filter((e) => e.pid === parse.pid && e.tid === main.tid && e.ph === 'X');
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  let t = profile.startTime;
  const samples = profile.samples.map((id, i) => ({ id, t: (t += profile.timeDeltas[i]) }));
  return onMain.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.tdur >= MIN_CPU_MS * 1000).map((task) => {
    const inside = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur);
    const votes = new Map(), self = new Map(), incl = new Map();  // self: samples per leaf function; incl: per function on the stack
    for (const s of samples) {
      if (s.t < task.ts || s.t > task.ts + task.dur) continue;
      let label = null;  // the outermost labelled function on the stack: setup, not the engine call it made
      for (let id = s.id; id !== undefined; id = parent.get(id)) {
        const f = nodes.get(id).callFrame;
        if (f.url.endsWith('attention-lab.js') && LABELLED.has(f.functionName)) label = `${f.functionName} (${sourceOf(f.lineNumber + 1)})`;
      }
      if (label) votes.set(label, (votes.get(label) || 0) + 1);
      const seen = new Set();
      for (let id = s.id; id !== undefined; id = parent.get(id)) {
        const f = nodes.get(id).callFrame;
        const key = `${f.functionName || '(anonymous)'} ${f.url.endsWith('attention-lab.js') ? sourceOf(f.lineNumber + 1) + ':' + (f.lineNumber + 1) : f.url.split('/').pop()}`;
        if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) || 0) + 1); }
      }
      const leaf = nodes.get(s.id).callFrame;
      const name = `${leaf.functionName || '(anonymous)'} ${leaf.url.endsWith('attention-lab.js') ? sourceOf(leaf.lineNumber + 1) : leaf.url.split('/').pop()}`;
      self.set(name, (self.get(name) || 0) + 1);
    }
    const big = (name) => inside.find((k) => k.name === name && k.dur > task.dur * 0.3);
    let label = [...votes].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([l]) => l).join(' + ');
    if (!label && big('EvaluateScript')) label = `script evaluation ${String(big('EvaluateScript').args.data.url || '').split('/').pop()}`;
    if (!label && (big('Layout') || big('UpdateLayoutTree') || big('Paint'))) label = 'style, layout, paint';
    if (!label && big('ParseHTML')) label = 'HTML parsing';
    if (!label) label = inside.filter((k) => k.dur > task.dur * 0.3).map((k) => k.name).slice(0, 2).join(', ') || '(browser)';
    const compiles = inside.filter((k) => /Compile/.test(k.name));
    const outer = compiles.filter((k) => !compiles.some((o) => o !== k && o.ts <= k.ts && o.ts + o.dur >= k.ts + k.dur));
    if (process.env.COMPILE) console.log('compile', label, outer.reduce((a, k) => a + (k.tdur || k.dur), 0) / 1000, [...new Set(outer.map((k) => k.name))].join(','));
    if (process.env.BREAKDOWN && task.tdur > 30000) {
      const sums = new Map();
      for (const k of inside) sums.set(k.name, (sums.get(k.name) || 0) + (k.tdur || k.dur || 0));
      console.log('breakdown', label, [...sums].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}`).join('; '));
    }
    const layout = inside.filter((k) => k.name === 'Layout').reduce((sum, k) => sum + (k.tdur || 0), 0);
    const top = process.env.FUNCS === 'incl'
      ? [...incl].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([f, c]) => `${c} ${f}`)
      : [...self].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([f, c]) => `${c} ${f}`);
    return { label, cpu: task.tdur / 1000, wall: task.dur / 1000, layout: layout / 1000, top };
  });
}

(async () => {
  const rel = process.argv[2] || 'dist/lesson-1.html';
  const width = Number(process.argv[3] || 1280);
  const sourceOf = await prepare();
  const browser = await launch();
  try {
    for (let run = 1; run <= Number(process.env.RUNS || 2); run++) {
      const tasks = await profileOnce(browser, pathToFileURL(path.join(out, rel)).href, width, sourceOf);
      console.log(`${rel} at ${width} px, cold load ${run}: main-thread tasks over ${MIN_CPU_MS} ms of CPU, in order`);
      console.log('   cpu ms  wall ms  layout cpu ms  what');
      for (const x of tasks) {
        console.log(`  ${x.cpu.toFixed(1).padStart(7)}  ${x.wall.toFixed(0).padStart(7)}  ${x.layout.toFixed(1).padStart(13)}  ${x.label}`);
        // FUNCS=1: the functions with the most samples of their own in each task
        if (process.env.FUNCS) for (const line of x.top) console.log(`           ${line}`);
      }
    }
  } finally {
    await browser.close();
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
