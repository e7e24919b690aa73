'use strict';
// Issue 6, item 5: the widgets never hold the main thread for 50 ms while a reader uses them.
// That target is npm run bench:site's to report, page by page (a timing target in a test fails on
// a loaded machine: issue 27, item 8). This test asserts a bound three times as wide, 150 ms, in
// CPU time from a Chromium trace (traceTasks; a task's wall time also counts waiting for a core):
// a loaded machine does not break it, work done in one piece instead of slices does. The load's
// tasks are printed, not asserted.
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, traceTasks, settled } = require('./browser.js');
const { useEveryWidget } = require('./use-every-widget.js');

const url = pathToFileURL(path.resolve(__dirname, 'hosts', 'all-widgets.html')).href;

test('one of each widget: no main-thread task takes 150 ms of CPU while every widget is used (the 50 ms target: bench:site)', async (t) => {
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const loading = await traceTasks(page, { url });
    await page.goto(url);
    await settled(page, 60000);
    await page.waitForTimeout(1000);  // work that goes on after the first drawing
    const load = await loading.stop();
    const using = await traceTasks(page);
    await useEveryWidget(page);
    const use = await using.stop();
    const long = (tasks) => tasks.filter((x) => x.cpu >= 150).map((x) => Math.round(x.cpu));
    const top = (tasks) => Math.round(Math.max(...tasks.map((x) => x.cpu)));
    const over30 = (tasks) => tasks.filter((x) => x.cpu >= 30).map((x) => Math.round(x.cpu)).join(', ') || 'none';
    const painted = load.filter((x) => x.painted);
    t.diagnostic(`longest task CPU ms: loading ${top(load)} (after the first paint ${top(painted)}), using ${top(use)}; tasks of 30 ms or more: loading ${over30(load)}, using ${over30(use)} (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
    assert.ok(load.length > 20 && use.length > 20, 'the traces hold the page\'s tasks');
    assert.ok(painted.length > 10 && painted.length < load.length, 'the load trace has its first contentful paint');
    assert.deepEqual(long(use), [], 'no task of 150 ms of CPU while the widgets are used');
    assert.equal(await page.evaluate(() => document.querySelector('#w-heads').state.heads), 8, 'the last choices took effect');
    await context.close();
  } finally {
    await browser.close();
  }
});
