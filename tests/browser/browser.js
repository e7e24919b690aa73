'use strict';
// Shared browser-test helpers: Debian's Chromium through playwright-core, a page watcher
// that records console errors and any request outside the page's own origin.

const { chromium } = require('playwright-core');

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--allow-file-access-from-files=false'];

function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ARGS, headless: true });
}

/** Opens a page that records problems; `origin` is the only allowed request origin ('file' for file://). */
async function watchedPage(browser, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    const url = new URL(req.url());
    const pageUrl = page.url() === 'about:blank' ? req.url() : page.url();
    const own = new URL(pageUrl);
    const allowed = url.protocol === 'data:' || (url.protocol === 'file:' && own.protocol === 'file:') || url.origin === own.origin;
    if (!allowed) problems.push(`request outside the page's origin: ${req.url()}`);
  });
  return { page, problems, close: () => context.close() };
}

module.exports = { launch, watchedPage };
