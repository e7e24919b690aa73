#!/usr/bin/env node
'use strict';
// npm run bench:lighthouse: Lighthouse 12.2.3's mobile preset (its default: a phone's screen,
// simulated slow 4G, 4 x CPU slowdown) on every page of the built site, served from dist/
// gzip-compressed as a static host serves it, in Debian's Chromium. Prints one table: page |
// performance | FCP | LCP | TBT | CLS | accessibility | best practices, each the median of the
// runs (each column on its own), and every audit that cost an accessibility or best-practices
// point. A benchmark, not a test: run it after `node scripts/build.js wasm bundle site`.
// RUNS=n runs per page (default 3; the pages take turns, so a busy minute spreads over all of
// them); PAGES=a,b only pages whose file name contains a or b; COMPARE=<another checkout,
// built> runs that checkout's dist/ alternately with this one, and prints both figures in each
// cell (this one last): a before/after under the same conditions. DIST=<dir> measures that
// built site instead of this checkout's dist/. CHROMIUM_PATH overrides /usr/bin/chromium.

const fs = require('fs');
const path = require('path');
const { startServer } = require('./server.js');
const { PAGES } = require('./build-site.js');

const root = path.resolve(__dirname, '..');
const RUNS = Math.max(1, Number(process.env.RUNS || 3));
const CATEGORIES = ['performance', 'accessibility', 'best-practices'];
const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic'];

const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The figures of one Lighthouse result (lhr), and the audits that cost a point outside performance. */
function figures(lhr) {
  const a = lhr.audits;
  const lost = [];
  for (const id of ['accessibility', 'best-practices']) {
    for (const ref of lhr.categories[id].auditRefs) {
      const audit = a[ref.id];
      if (ref.weight > 0 && audit.score !== null && audit.score < 1) lost.push(`${id}: ${ref.id} (${audit.title})`);
    }
  }
  return {
    performance: lhr.categories.performance.score,
    fcp: a['first-contentful-paint'].numericValue,
    lcp: a['largest-contentful-paint'].numericValue,
    tbt: a['total-blocking-time'].numericValue,
    cls: a['cumulative-layout-shift'].numericValue,
    accessibility: lhr.categories.accessibility.score,
    bestPractices: lhr.categories['best-practices'].score,
    lost,
    error: lhr.runtimeError ? lhr.runtimeError.message : null,
  };
}

const COLUMNS = [
  ['performance', (x) => x.toFixed(2)],
  ['FCP', (x) => `${(x / 1000).toFixed(1)} s`, 'fcp'],
  ['LCP', (x) => `${(x / 1000).toFixed(1)} s`, 'lcp'],
  ['TBT', (x) => `${Math.round(x)} ms`, 'tbt'],
  ['CLS', (x) => x.toFixed(3), 'cls'],
  ['accessibility', (x) => x.toFixed(2)],
  ['best practices', (x) => x.toFixed(2), 'bestPractices'],
];

function table(rows, sides) {
  const lines = [`| page | ${COLUMNS.map(([name]) => name).join(' | ')} |`, `|---|${COLUMNS.map(() => '---').join('|')}|`];
  for (const { file, runs } of rows) {
    const cells = COLUMNS.map(([name, format, key = name]) => sides.map((side) => format(median(runs[side].map((r) => r[key])))).join(' \u2192 '));
    lines.push(`| ${file.replace(/\.html$/, '')} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

async function main() {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const chromePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  const dirs = { this: process.env.DIST ? path.resolve(process.env.DIST) : path.join(root, 'dist') };
  if (process.env.COMPARE) dirs.before = path.join(path.resolve(process.env.COMPARE), 'dist');
  const sides = process.env.COMPARE ? ['before', 'this'] : ['this'];
  for (const side of sides) {
    if (!fs.existsSync(path.join(dirs[side], 'index.html'))) {
      throw new Error(`${dirs[side]} has no built site: run node scripts/build.js wasm bundle site${side === 'this' ? '' : ' in that checkout'} first`);
    }
  }
  const want = process.env.PAGES ? process.env.PAGES.split(',') : null;
  const files = PAGES.map((p) => p.file).filter((f) => !want || want.some((w) => f.includes(w)));
  const servers = {};
  for (const side of sides) servers[side] = await startServer({ root: dirs[side], gzip: true });
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags: CHROME_FLAGS, logLevel: 'silent' });
  // Stopped half-way (Ctrl+C, kill): the browser goes too.
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => {
    chrome.kill();
    process.exit(130);
  });
  const rows = files.map((file) => ({ file, runs: Object.fromEntries(sides.map((s) => [s, []])) }));
  const lost = new Map();
  try {
    for (let run = 0; run < RUNS; run += 1) {
      for (const row of rows) {
        // Alternate which side goes first, so neither always meets the warmer machine.
        const order = run % 2 ? [...sides].reverse() : sides;
        for (const side of order) {
          const url = new URL(row.file, servers[side].url).href;
          const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES });
          const f = figures(result.lhr);
          if (f.error) throw new Error(`${side} ${row.file}: Lighthouse: ${f.error}`);
          row.runs[side].push(f);
          for (const l of f.lost) lost.set(`${side === 'this' ? '' : `${side}: `}${row.file}: ${l}`, true);
          console.error(`run ${run + 1}/${RUNS} ${side} ${row.file}: performance ${f.performance}, FCP ${Math.round(f.fcp)} ms, LCP ${Math.round(f.lcp)} ms, TBT ${Math.round(f.tbt)} ms, CLS ${f.cls.toFixed(3)}`);
        }
      }
    }
  } finally {
    chrome.kill();
    for (const side of sides) await servers[side].close();
  }
  const version = require('lighthouse/package.json').version;
  console.log(`Lighthouse ${version}, mobile preset (simulated slow 4G: 150 ms RTT, 1.6 Mbit/s; 4 x CPU slowdown), ${chromePath}, dist/ served gzip-compressed; median of ${RUNS} run${RUNS > 1 ? 's' : ''} per page${sides.length > 1 ? `; before (${process.env.COMPARE}) \u2192 this checkout` : ''}\n`);
  console.log(table(rows, sides));
  console.log(lost.size ? `\nPoints lost outside performance (in any run):\n${[...lost.keys()].map((l) => `- ${l}`).join('\n')}` : '\nNo accessibility or best-practices point lost in any run.');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
