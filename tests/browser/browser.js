'use strict';
// Shared browser-test helpers: Debian's Chromium through playwright-core, a page watcher
// that records console errors and any request outside the page's own origin.

const { chromium } = require('playwright-core');
const { WIDGETS } = require('../../web/src/kit/manifest.js');

/** Every element name the bundle defines. */
const TAGS = Object.keys(WIDGETS);

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--allow-file-access-from-files=false'];

// EXTRA_ARGS: more Chromium switches for a measurement (e.g. --js-flags=--no-wasm-lazy-compilation in
// scripts/profile-load.js); the tests never set it.
function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: process.env.EXTRA_ARGS ? ARGS.concat(process.env.EXTRA_ARGS.split(' ')) : ARGS, headless: true });
}

/** Opens a page that records problems (and console warnings, apart); `origin` is the only allowed request origin ('file' for file://). */
async function watchedPage(browser, { width = 1280, height = 900, colorScheme } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, ...(colorScheme ? { colorScheme } : {}) });
  const page = await context.newPage();
  const problems = [], warnings = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
    else if (msg.type() === 'warning') warnings.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    const url = new URL(req.url());
    const pageUrl = page.url() === 'about:blank' ? req.url() : page.url();
    const own = new URL(pageUrl);
    const allowed = url.protocol === 'data:' || (url.protocol === 'file:' && own.protocol === 'file:') || url.origin === own.origin;
    if (!allowed) problems.push(`request outside the page's origin: ${req.url()}`);
  });
  return { page, problems, warnings, close: () => context.close() };
}

/** The Content-Security-Policy profiles the widgets are tested under (issue 6 and the README). */
const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'none'; img-src 'self'";
const CSP = {
  strict: STRICT,
  trustedTypes: `${STRICT}; require-trusted-types-for 'script'; trusted-types 'none'`,
  noWasm: "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'none'; img-src 'self'",
};

/** Serves the responses `page` gets for `url` (a URL or glob) with `csp` as their Content-Security-Policy header. */
async function sendPolicy(page, url, csp) {
  await page.route(url, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': csp } });
  });
}

/**
 * Text a reader would see where a value was missing: "null", "undefined" or "[object Object]"
 * as words in any widget of the page (or frame), each as '<tag#id>: ...context...'.
 */
function textSlips(where) {
  return whileDrawn(where, TAGS.join(','), () => where.evaluate((tags) => Array.from(document.querySelectorAll(tags.join(','))).flatMap((el) => {
    const frame = el.shadowRoot && el.shadowRoot.querySelector('.al-frame');
    const text = frame ? frame.innerText : '';
    const m = /(^|[^\w-])(null|undefined|\[object Object\])(?![\w-])/.exec(text);
    return m ? [`${el.localName}#${el.id}: ...${text.slice(Math.max(0, m.index - 60), m.index + 40)}...`] : [];
  }), TAGS));
}

/**
 * Runs read() with the content-visibility: auto boxes around the elements `selector` matches
 * drawn: the lesson pages skip sections far out of view, and what a skipped box holds has no
 * innerText or layout.
 */
async function whileDrawn(where, selector, read) {
  await where.$$eval(selector, (els) => {
    for (const el of els) {
      for (let n = el; n; n = n.parentElement) {
        if (getComputedStyle(n).contentVisibility !== 'auto') continue;
        n.dataset.alTestDrawn = '';
        n.style.contentVisibility = 'visible';
      }
    }
  });
  try {
    return await read();
  } finally {
    await where.$$eval('[data-al-test-drawn]', (boxes) => boxes.forEach((n) => { delete n.dataset.alTestDrawn; n.style.contentVisibility = ''; }));
  }
}

/** A widget's rendered text (innerText leaves out display: none, such as print-only lines). */
const drawnText = (where, selector) => whileDrawn(where, selector, () => where.$eval(selector, (el) => el.shadowRoot.querySelector('.al-frame').innerText));

/**
 * Brings every widget of the page (or frame) near the viewport once, as a reader scrolling
 * through the page does: the kit starts a widget far below only when it comes within a screen
 * of the viewport. Each widget is brought just below the view (near, not in sight, as a reader
 * scrolling down meets it) and drawn before the next; then the view goes back to what it showed,
 * by the element that was at its top. A widget out of the layout (display: none) stays unstarted.
 */
async function startEveryWidget(where, timeout = 20000) {
  await where.evaluate(async ([tags, timeout]) => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))));
    const waiting = Array.from(document.querySelectorAll(tags.join(','))).filter((el) => el.status === 'loading' && el.checkVisibility());
    if (!waiting.length) return;
    const anchor = document.elementFromPoint(innerWidth / 2, 1) || document.body;
    const anchorTop = anchor.getBoundingClientRect().top;
    for (const el of waiting) {
      // An observer of the kit's margin reports in the same rendering as the kit's.
      let seen = false;
      const near = new Promise((resolve) => {
        const io = new IntersectionObserver((entries) => {
          if (!entries.some((e) => e.isIntersecting)) return;
          io.disconnect();
          seen = true;
          resolve();
        }, { rootMargin: '100% 100% 100% 100%' });
        io.observe(el);
      });
      window.scrollBy(0, el.getBoundingClientRect().top - innerHeight * 1.25);
      // A box skipped by content-visibility: auto is laid out only nearer: then into view.
      await Promise.race([near, frame().then(frame).then(frame)]);
      if (!seen) el.scrollIntoView({ block: 'center', inline: 'nearest' });
      await near;
      const deadline = performance.now() + timeout;
      while (el.status === 'loading' && performance.now() < deadline) await frame();
    }
    window.scrollBy(0, anchor.getBoundingClientRect().top - anchorTop);
    await frame();
  }, [TAGS, timeout]);
}

/**
 * Waits until every widget in the page (or frame) is drawn or shows its message, apart from
 * those out of the layout (display: none), which start when shown; none may show a missing value as text.
 */
async function settled(where, timeout = 20000) {
  await startEveryWidget(where, timeout);
  await where.waitForFunction((tags) => Array.from(document.querySelectorAll(tags.join(',')))
    .every((el) => el.status === 'ready' || el.status === 'error' || !el.checkVisibility()), TAGS, { timeout });
  const slips = await textSlips(where);
  if (slips.length) throw new Error(`a widget shows a missing value as text: ${slips.join(' | ')}`);
}

/** A watched page (watchedPage) opened at `url`, once its widgets have settled. */
async function openSettled(browser, url, opts) {
  const w = await watchedPage(browser, opts);
  await w.page.goto(url);
  await settled(w.page);
  return w;
}

/**
 * Starts tracing a page's main-thread tasks; `stop()` ends the trace and resolves to the tasks,
 * each { cpu, wall, painted } in milliseconds, in order. `painted` (given `url`) says the task
 * ended after the page's first contentful paint: the tasks before it build the page's first
 * frame, when there is nothing on screen yet for a reader to use (Lighthouse's Total Blocking
 * Time counts from that paint on for the same reason). CPU time is what the page's own work costs; a
 * task's wall time (what the longtask API reports) also counts the time it waited for a core,
 * so on a busy machine it measures the machine. Given `url`, only the renderer that parsed
 * that document counts (start before page.goto); otherwise every renderer's main thread.
 */
async function traceTasks(page, { url } = {}) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const complete = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel', 'devtools.timeline', 'loading'] }, transferMode: 'ReportEvents' });
  return {
    async stop() {
      await cdp.send('Tracing.end');
      await complete;
      await cdp.detach();
      const parsed = url && events.find((e) => e.name === 'ParseHTML' && e.args && e.args.beginData && e.args.beginData.url === url);
      if (url && !parsed) throw new Error(`traceTasks: no ParseHTML event for ${url} in the trace`);
      const mains = new Set(events.filter((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain' && (!parsed || e.pid === parsed.pid))
        .map((e) => `${e.pid}:${e.tid}`));
      if (!mains.size) throw new Error('traceTasks: the trace names no renderer main thread');
      const fcp = parsed && events.find((e) => e.name === 'firstContentfulPaint' && e.pid === parsed.pid);
      return events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && mains.has(`${e.pid}:${e.tid}`) && e.tdur !== undefined)
        .sort((a, b) => a.ts - b.ts).map((e) => ({ cpu: e.tdur / 1000, wall: e.dur / 1000, painted: fcp ? e.ts + e.dur > fcp.ts : undefined }));
    },
  };
}

/**
 * For a test file: launches Chromium before its tests and serves the repository at `root`,
 * closing both after. Returns getters, as both exist only once the tests run.
 */
function browserAndServer(test, root) {
  const { startServer } = require('../../scripts/server.js');
  let browser, server;
  test.before(async () => {
    browser = await launch();
    server = await startServer({ root });
  });
  test.after(async () => {
    await server.close();
    await browser.close();
  });
  return { browser: () => browser, url: () => server.url };
}

module.exports = { traceTasks, browserAndServer, launch, watchedPage, settled, startEveryWidget, openSettled, textSlips, whileDrawn, drawnText, sendPolicy, CSP, TAGS };
