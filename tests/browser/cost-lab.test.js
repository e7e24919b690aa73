'use strict';
// <cost-lab> as a learner uses it: predict, Run (in a Web Worker over http and from file://,
// on the page thread under a CSP that forbids blob: workers), Cancel, the calculator typed
// into, the export menu; the main thread never runs a task of 50 ms or more during the
// sweep, and shown numbers equal the engine's.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { traceTasks, launch, watchedPage, settled, sendPolicy, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { formatBytes } = require('../../web/src/ui/bytes.js');
const { parseCSV } = require('../node/csv-reader.js');

const root = path.resolve(__dirname, '..', '..');
const saved = path.join(root, 'test-results', 'exports');

let browser, server, lab;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  lab = await loadAttentionLab();
  fs.mkdirSync(saved, { recursive: true });
});
test.after(async () => {
  await server.close();
  await browser.close();
});

const HOST = 'tests/browser/hosts/cost-lab.html';

/** Records main-thread long tasks from the moment window.longTasks is reset. */
function watchLongTasks() {
  window.longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.longTasks.push(Math.round(e.duration));
  }).observe({ type: 'longtask' });
}

async function openLab(url, opts = {}) {
  const w = await watchedPage(browser, opts);
  if (opts.csp) await sendPolicy(w.page, url, opts.csp);
  await w.page.addInitScript(watchLongTasks);
  await w.page.goto(url);
  await settled(w.page);
  return w;
}

const inLab = (page, fn, arg) => page.evaluate(([src, a]) => {
  const el = document.querySelector('cost-lab');
  return new Function('el', 'root', 'arg', `return (${src})(el, root, arg);`)(el, el.shadowRoot, a);
}, [fn.toString(), arg]);

const statusText = (page) => page.locator('cost-lab .al-cost-status').textContent();

/** CPU milliseconds of every main-thread task of 50 ms or more while fn runs (see traceTasks). */
async function cpuLongTasks(page, fn) {
  const trace = await traceTasks(page);
  await fn();
  const tasks = await trace.stop();
  assert.ok(tasks.length > 0, 'the trace has the main thread\'s tasks');
  return tasks.filter((x) => x.cpu >= 50).map((x) => Math.round(x.cpu));
}

/** Presses Run with the keyboard and waits for the sweep to end. */
async function runSweep(page) {
  await page.locator('cost-lab button:has-text("Run")').focus();
  await page.evaluate(() => { window.longTasks = []; });
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /^Done/.test(document.querySelector('cost-lab').shadowRoot.querySelector('.al-cost-status').textContent), null, { timeout: 180000 });
}

test('over http: the prediction hides the results until answered, the sweep runs in a worker with no long task, and the wrong answer is explained', async (t) => {
  const w = await openLab(`${server.url}${HOST}`);
  const { page } = w;
  assert.equal(await page.locator('cost-lab .al-cost-results').isVisible(), false, 'results hidden before a prediction');
  await page.click('cost-lab button:has-text("about 2\u00d7 (slope 1)")');
  assert.match(await page.locator('cost-lab .al-predict [aria-live]').textContent(), /^Not yet\. Count the dot products: each of the n queries is scored against each of the n keys\./);
  assert.equal(await page.locator('cost-lab .al-cost-results').isVisible(), false, 'still hidden after a first miss');
  await page.click('cost-lab button:has-text("about 2\u00d7 (slope 1)")');
  assert.match(await page.locator('cost-lab .al-predict [aria-live]').textContent(), /^Not quite: about 4× \(slope 2\)\. Your 2× would be linear growth/);
  assert.equal(await page.locator('cost-lab .al-cost-results').isVisible(), true);
  const cpu = await cpuLongTasks(page, () => runSweep(page));
  const state = await page.evaluate(() => document.querySelector('cost-lab').state);
  assert.equal(state.runner, 'worker');
  assert.equal(state.ran, true);
  assert.deepEqual(cpu, [], 'no main-thread task takes 50 ms of CPU during the sweep');
  t.diagnostic(`wall-clock tasks over 50 ms (longtask API), load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores: ${JSON.stringify(await page.evaluate(() => window.longTasks))}`);
  // Every size up to 1024 measured for both methods, each a positive time. The slopes are
  // measurements (noisy on a busy machine, even negative over two sizes): their form is checked.
  const rows = await page.locator('cost-lab table[part="table"] tbody tr').allTextContents();
  assert.equal(rows.length, 5);
  for (const r of rows) assert.match(r, /^n = [\d,]+(\d[\d.]* (ms|s)){2}/, r);
  // With sizes up to 1,024 only two lie past 512: the fit takes the last three.
  assert.match(await page.locator('cost-lab .al-cost-slopes').textContent(), /Time: full slope −?\d\.\d\d \(n = 256–1,024\), tiled slope −?\d\.\d\d/);
  assert.match(await page.locator('cost-lab .al-predict [aria-live]').textContent(), /Your browser measured a slope of −?\d\.\d\d over n = 256–1,024/);
  // The memory columns are the engine's counts at n = 1024: full as this engine holds it
  // (four stages), a minimal kernel's one matrix, and the tiled kernel's blocks.
  const c = lab.costFigures({ m: 1024, n: 1024, dk: 64 });
  const cells = await page.locator('cost-lab table[part="table"] tbody tr').nth(4).locator('td').allTextContents();
  assert.deepEqual(cells.slice(2), [formatBytes(c.engine.extraFloats * 4), formatBytes(c.full.peakExtraFloats * 4), formatBytes(c.tiled.peakExtraFloats * 4)]);
  assert.equal(c.engine.extraFloats * 4, (4 * 1024 * 1024 + 2 * 64 * 1024) * 4, 'four 1,024 x 1,024 stages and K and V packed, in bytes');
  // Both charts name their lines inside the plot.
  assert.deepEqual(await page.locator('cost-lab [part="chart"] svg .al-legend text').allTextContents(),
    ['full attention', 'tiled (online softmax)', 'full, this engine (4 stages)', 'full, minimal kernel', 'tiled (online softmax)']);
  // The traffic table beside the charts: the engine's counts at the largest n of the run.
  const traffic = await page.locator('cost-lab .al-cost-traffic tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const f = lab.costFigures({ m: 1024, n: 1024, dk: 64 }), win = lab.costFigures({ m: 1024, n: 1024, dk: 64, causal: true, window: 256 });
  const row = (label, m) => [label, ...[m.multiplyAdds, m.floatsRead, m.floatsWritten, m.peakExtraFloats].map((v) => v.toLocaleString('en-US'))];
  assert.deepEqual(traffic, [row('full attention (one n × n matrix, written and read back)', f.full), row('tiled, 64 × 64 blocks', f.tiled),
    row('tiled, causal window of 256 keys, whole 64 × 64 blocks', win.tiled)]);
  // As the review worked it out: the same 134,217,728 multiply-adds; 2,162,688 floats written against 66,560.
  assert.deepEqual([traffic[0][1], traffic[1][1], traffic[0][3], traffic[1][3]], ['134,217,728', '134,217,728', '2,162,688', '66,560']);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('Enter on Run moves the focus to Cancel for the run and back to Run when it ends', async () => {
  const w = await openLab(`${server.url}${HOST}`);
  const { page } = w;
  await page.click('cost-lab button:has-text("Show the results without predicting")');
  const focused = () => page.evaluate(() => {
    const a = document.querySelector('cost-lab').shadowRoot.activeElement;
    return a ? a.textContent : document.activeElement.tagName;
  });
  await page.locator('cost-lab button:has-text("Run")').focus();
  await page.keyboard.press('Enter');
  assert.equal(await focused(), 'Cancel', 'the focus is on Cancel while the sweep runs');
  await page.waitForFunction(() => /^Done/.test(document.querySelector('cost-lab').shadowRoot.querySelector('.al-cost-status').textContent), null, { timeout: 180000 });
  assert.equal(await focused(), 'Run', 'the focus is back on Run when it ends');
  // And a keyboard Cancel mid-run leaves it on Run too.
  await page.evaluate(() => document.querySelector('cost-lab').setAttribute('max-n', '16384'));
  await page.keyboard.press('Enter');
  assert.equal(await focused(), 'Cancel');
  await page.keyboard.press('Enter');
  assert.equal(await focused(), 'Run');
  assert.match(await statusText(page), /^Cancelled/);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('Cancel stops a long sweep at once, keeps what was measured, and Run starts again', { timeout: 180000 }, async () => {
  const w = await openLab(`${server.url}${HOST}`);
  const { page } = w;
  await page.evaluate(() => document.querySelector('cost-lab').setAttribute('max-n', '16384'));
  await page.click('cost-lab button:has-text("Show the results without predicting")');
  await page.click('cost-lab button:has-text("Run")');
  await page.waitForFunction(() => document.querySelector('cost-lab').shadowRoot.querySelector('progress').value > 0, null, { timeout: 60000 });
  await page.locator('cost-lab button:has-text("Cancel")').focus();
  // The listener is in place before the key press; the click that cancels reads the status in
  // the same task, so it shows whether Cancel acted at once.
  await page.evaluate(() => {
    const el = document.querySelector('cost-lab');
    window.__cancelStatus = new Promise((resolve) => {
      el.shadowRoot.addEventListener('click', () => resolve(el.shadowRoot.querySelector('.al-cost-status').textContent), { once: true });
    });
  });
  await page.keyboard.press('Enter');
  const status = await page.evaluate(() => window.__cancelStatus);
  assert.match(status, /^Cancelled after \d+ of 18 runs\.$/, 'the click that cancels has already stopped the sweep');
  assert.equal(await page.locator('cost-lab button:has-text("Run")').isEnabled(), true);
  assert.equal(await page.locator('cost-lab button:has-text("Cancel")').isEnabled(), false);
  const before = await page.locator('cost-lab progress').evaluate((p) => p.value);
  await page.waitForTimeout(1500);
  assert.equal(await page.locator('cost-lab progress').evaluate((p) => p.value), before, 'nothing runs after Cancel');
  assert.match(await statusText(page), /^Cancelled/);
  await page.evaluate(() => document.querySelector('cost-lab').setAttribute('max-n', '1024'));
  await runSweep(page);
  assert.deepEqual(w.problems, []);
  await w.close();
});

// CSP.strict lets the script's own origin run workers, and so the lab's worker from the script's
// address (tests/browser/author-pages.test.js): a page that forbids workers says worker-src 'none'.
const NO_WORKERS = `${CSP.strict}; worker-src 'none'`;

test('under a CSP that forbids workers the sweep runs on the page in small tasks and says so in one sentence', async () => {
  const w = await openLab(`${server.url}${HOST}`, { csp: NO_WORKERS });
  const { page } = w;
  await page.click('cost-lab button:has-text("about 4\u00d7 (slope 2)")');
  await runSweep(page);
  assert.equal(await page.evaluate(() => document.querySelector('cost-lab').state.runner), 'page');
  assert.equal(await page.locator('cost-lab .al-cost-note').textContent(),
    'This page does not allow background workers, so the measurement runs on the page itself, in small steps, and stops at sizes where one call would take more than about 50 ms.');
  const measured = await page.locator('cost-lab table[part="table"] tbody td:has-text(" ms")').count();
  assert.ok(measured >= 2, `at least the smallest size of each method measured (${measured} cells)`);
  // The only console line is Chromium's report of the refused worker.
  assert.ok(w.problems.every((p) => /Content Security Policy|worker/i.test(p)), w.problems.join('\n'));
  await w.close();
  // worker="off" never tries, so such a page logs nothing.
  const off = await openLab(`${server.url}${HOST}`, { csp: NO_WORKERS });
  await off.page.evaluate(() => document.querySelector('cost-lab').setAttribute('worker', 'off'));
  await settled(off.page);
  await off.page.click('cost-lab button:has-text("Show the results without predicting")');
  await runSweep(off.page);
  assert.equal(await off.page.evaluate(() => document.querySelector('cost-lab').state.runner), 'page');
  assert.deepEqual(off.problems, []);
  await off.close();
});

test('from file:// the worker starts from the script\'s own source, fetching nothing', async () => {
  const w = await openLab(pathToFileURL(path.join(root, HOST)).href);
  await w.page.click('cost-lab button:has-text("Show the results without predicting")');
  await runSweep(w.page);
  assert.equal(await w.page.evaluate(() => document.querySelector('cost-lab').state.runner), 'worker');
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('the calculator shows the engine\'s bytes for each preset and for numbers typed in, and names bad input', async () => {
  const w = await openLab(`${server.url}${HOST}`, { width: 390, height: 844 });
  const { page } = w;
  const cell = (label) => page.locator(`cost-lab .al-cost-calc-table tr:has(th:has-text("${label}")) td`).textContent();
  await page.locator('cost-lab label:has-text("model") select').selectOption('llama-2-70b');
  const expect = lab.kvCacheBytes({ layers: 80, kvHeads: 8, dHead: 128, dtype: 'float16', tokens: 4096, batch: 1 });
  assert.equal(await cell('KV cache per token'), `${formatBytes(expect.bytesPerToken)} (${expect.bytesPerToken.toLocaleString('en-US')} bytes)`);
  assert.equal(await cell('KV cache for 1 \u00d7 4,096 tokens'), `${formatBytes(expect.bytes)} (${expect.bytes.toLocaleString('en-US')} bytes)`);
  const noGqa = lab.kvCacheBytes({ layers: 80, kvHeads: 64, dHead: 128, dtype: 'float16', tokens: 4096, batch: 1 });
  assert.match(await cell('without grouped-query'), new RegExp(`^${formatBytes(noGqa.bytes)} `));
  // Typed with the keyboard: batch 8, then float32.
  const batch = page.locator('cost-lab label:has-text("batch") input');
  await batch.fill('8');
  await batch.press('Tab');
  await page.locator('cost-lab label:has-text("dtype") select').selectOption('float32');
  const m = lab.attentionMatrixBytes({ batch: 8, heads: 64, n: 4096, dtype: 'float32' });
  assert.equal(await cell('attention weights, one layer'), `${m.elements.toLocaleString('en-US')} numbers = ${formatBytes(m.bytes)} (${m.bytes.toLocaleString('en-US')} bytes)`);
  assert.equal(await page.evaluate(() => document.querySelector('cost-lab').state.preset), 'custom');
  await batch.fill('2.5');
  await batch.press('Tab');
  // A refused size is named beside the boxes with the field's own label, as typed; the box is
  // marked invalid, and the figures keep the last good batch (8), so nothing on screen breaks.
  assert.equal(await page.locator('cost-lab .al-field-message').textContent(), 'batch: "2.5" is not a whole number; type a whole number of 1 or more.');
  assert.equal(await batch.getAttribute('aria-invalid'), 'true');
  const kept = lab.kvCacheBytes({ layers: 80, kvHeads: 8, dHead: 128, dtype: 'float32', tokens: 4096, batch: 8 });
  assert.equal(await cell('KV cache for 8 \u00d7 4,096 tokens'), `${formatBytes(kept.bytes)} (${kept.bytes.toLocaleString('en-US')} bytes)`);
  assert.equal(await cell('KV cache per token'), `${formatBytes(expect.bytesPerToken * 2)} (${(expect.bytesPerToken * 2).toLocaleString('en-US')} bytes)`, 'float32 now: twice the float16 bytes');
  await batch.fill('1');
  await batch.press('Tab');
  // kv heads that do not divide the heads are refused by the engine's rule.
  const kvh = page.locator('cost-lab label:has-text("kv heads") input');
  for (const bad of ['5', '128']) {
    await kvh.fill(bad);
    await kvh.press('Tab');
    assert.equal(await cell('KV cache per token'), `kv heads = ${bad} does not divide heads = 64: each kv head serves a whole group of query heads, so kv heads must divide heads (heads itself, or 1 for multi-query).`);
  }
  await kvh.fill('8');
  await kvh.press('Tab');
  // A total past 2^53 is refused while the per-token figure still shows (7-digit values fit their fields).
  const tokens = page.locator('cost-lab label:has-text("tokens n") input');
  await tokens.fill('9999999');
  await tokens.press('Tab');
  await batch.fill('9999999');
  await batch.press('Tab');
  assert.equal(await cell('KV cache for 9,999,999 \u00d7 9,999,999 tokens'), 'Too large to count exactly (past 2^53, about 9 \u00d7 10^15): use smaller numbers.');
  assert.match(await cell('KV cache per token'), /^640 KiB \(655,360 bytes\)$/);
  assert.equal(await tokens.evaluate((el) => el.scrollWidth <= el.clientWidth), true, 'a 7-digit value is not clipped');
  await tokens.fill('1.5');
  await tokens.press('Tab');
  assert.equal(await page.locator('cost-lab .al-field-message').textContent(), 'tokens n: "1.5" is not a whole number; type a whole number of 1 or more.', 'named as typed');
  assert.match(await page.locator('cost-lab .al-cost-calc-table th').nth(2).textContent(), /× 9,999,999 tokens$/, 'the table keeps the last good n');
  // Mistral 7B: the 4,096-key sliding window caps the weights and the rolling cache.
  await page.locator('cost-lab label:has-text("model") select').selectOption('mistral-7b');
  const mistral = lab.kvCacheBytes({ layers: 32, heads: 32, kvHeads: 8, dHead: 128, dtype: 'float32', tokens: 8192, window: 4096 });
  assert.equal(mistral.tokensCached, 4096);
  assert.equal(await cell('KV cache for 1 \u00d7 8,192 tokens'), `${formatBytes(mistral.bytes)} (${mistral.bytes.toLocaleString('en-US')} bytes): a rolling buffer of the last 4,096 tokens`);
  const band = lab.attentionMatrixBytes({ heads: 32, n: 8192, dtype: 'float32', window: 4096 });
  assert.equal(await cell('attention weights, one layer (1 \u00d7 32 heads \u00d7 8,192 \u00d7 at most 4,096 keys)'), `${band.elements.toLocaleString('en-US')} numbers = ${formatBytes(band.bytes)} (${band.bytes.toLocaleString('en-US')} bytes)`);
  assert.match(await page.locator('cost-lab .al-cost-calc-out p').textContent(), /Sliding window of 4,096 keys: each query weighs at most 4,096 keys, and the cache keeps only the last 4,096 tokens/);
  // On paper the prediction's answer is printed; the buttons are not.
  // What the print dialog does first (beforeprint): the prediction points to its numbered
  // answer, listed in the page's "Answers" section at the end.
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await page.emulateMedia({ media: 'print' });
  assert.match(await page.locator('cost-lab .al-print-answer').textContent(), /^Answer \d+ is in "Answers" at the end of the page\.$/);
  assert.match(await page.locator('section:has(h2:has-text("Answers")) li').last().textContent(), /about 4\u00d7 per doubling of n \(log-log slope 2\)/);
  assert.equal(await page.locator('cost-lab button:has-text("Run")').isVisible(), false);
  await page.emulateMedia({ media: 'screen' });
  // 390 px: nothing wider than the widget.
  assert.equal(await page.evaluate(() => { const f = document.querySelector('cost-lab').shadowRoot.querySelector('.al-frame'); return f.scrollWidth <= f.clientWidth; }), true);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('the time chart exports as CSV with the measured medians', async () => {
  const w = await openLab(`${server.url}${HOST}`);
  const { page } = w;
  await page.click('cost-lab button:has-text("Show the results without predicting")');
  await runSweep(page);
  const button = page.locator('cost-lab [part="chart"] .al-export-button').first();
  await button.click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('cost-lab [part="chart"] >> nth=0 >> button:has-text("CSV numbers")')]);
  const file = path.join(saved, download.suggestedFilename());
  await download.saveAs(file);
  const rows = parseCSV(fs.readFileSync(file, 'utf8').replace(/^\ufeff/, ''));
  assert.deepEqual(rows[0].slice(0, 3), ['n (log scale)', 'full attention', 'tiled (online softmax)']);
  assert.deepEqual(rows.slice(1).map((r) => Number(r[0])), [64, 128, 256, 512, 1024]);
  const shown = await page.evaluate(() => document.querySelector('cost-lab').sweep.rows.full.map((r) => r.ms));
  assert.deepEqual(rows.slice(1).map((r) => Number(r[1])), shown);
  await w.close();
});

test('the traffic table follows the fast memory M the reader picks: the engine\'s blocks and counts, the ratio, where the 64 comes from, and the link keeps M', async () => {
  const w = await openLab(`${server.url}${HOST}`);
  const { page } = w;
  await page.click('cost-lab button:has-text("Show the results without predicting")');
  const n = Number(await page.locator('cost-lab select').first().inputValue());
  const trafficRows = () => page.locator('cost-lab .al-cost-traffic tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const notes = () => page.locator('cost-lab .al-cost-traffic-notes').innerText();
  const options = await page.locator('cost-lab label:has-text("fast memory M") select option').allTextContents();
  assert.deepEqual(options, ['16 KiB', '64 KiB (this engine’s blocks)', '192 KiB (an A100 multiprocessor)', '1 MiB']);
  const before = await notes();
  assert.match(before, /Where this engine’s 64 × 64 blocks come from: they are a fixed default/);
  assert.match(before, /full attention reads and writes 2\.0 times as many floats as tiled attention/);
  // The reader picks the A100's 192 KiB: blocks of ceil(M / 4d) = 192 queries, the engine's counts in the table.
  await page.locator('cost-lab label:has-text("fast memory M") select').selectOption('192');
  const c = lab.costFigures({ m: n, n, dk: 64, fastMemory: 49152 });
  assert.deepEqual([c.blockQ, c.blockK], [192, 64]);
  const rows = await trafficRows();
  assert.equal(rows[1][0], 'tiled, 192 × 64 blocks');
  assert.deepEqual(rows[1].slice(1), [c.tiled.multiplyAdds, c.tiled.floatsRead, c.tiled.floatsWritten, c.tiled.peakExtraFloats].map((v) => v.toLocaleString('en-US')));
  const after = await notes();
  assert.ok(after.includes(`reads and writes ${c.trafficRatio.toFixed(1)} times as many floats`), after);
  assert.match(after, /Θ\(N d \+ N²\) .* Θ\(N² d² \/ M\)/);
  const win = lab.costFigures({ m: n, n, dk: 64, causal: true, window: 256, fastMemory: 49152 });
  assert.ok(after.includes(`on exactly those keys the work is ${win.visibleMultiplyAdds.toLocaleString('en-US')} multiply-adds`), after);
  assert.ok(after.includes(`so its row counts ${win.tiled.multiplyAdds.toLocaleString('en-US')}`), after);
  // The hardware note no longer says a processor has no fast memory.
  const hardware = await page.locator('cost-lab .al-cost-hardware').innerText();
  assert.doesNotMatch(hardware, /no small, fast memory/);
  assert.match(hardware, /L1 and L2 caches/);
  // A shared link reopens on the same M.
  await page.waitForFunction(() => /memory=192/.test(location.search), null, { timeout: 3000 });
  await page.reload();
  await settled(page);
  await page.click('cost-lab button:has-text("Show the results without predicting")');
  assert.equal(await page.locator('cost-lab label:has-text("fast memory M") select').inputValue(), '192');
  assert.equal((await trafficRows())[1][0], 'tiled, 192 × 64 blocks');
  assert.deepEqual(w.problems, []);
  await w.close();
});
