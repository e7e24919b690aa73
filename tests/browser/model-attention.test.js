'use strict';
// <model-attention> as an author's reader uses it (issue 21, part 1): the model view, the
// head view and the head summary over a fixture made with the engine
// (tests/node/fixtures/model-attention.js), values read back through the readout and the CSV
// export and compared with the fixture; the keyboard alone; bad data; 12 layers x 12 heads
// over 128 tokens without a long task; opening a head; a strict CSP; file://; src.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, watchedPage, openSettled, settled, sendPolicy, traceTasks, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { parseCSV } = require('../node/csv-reader.js');
const { fixtures, attentionSet, base64Form, nested, PAGE } = require('../node/fixtures/model-attention.js');

const root = path.resolve(__dirname, '..', '..');
let browser, server, other, lab, fixture, rows;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  other = await startServer({ root });
  lab = await loadAttentionLab();
  // The page's data: the GPT-2-like set at 3 decimals, as the page's JSON holds it.
  const json = JSON.parse(/<script type="application\/json">([\s\S]*?)<\/script>/.exec(fs.readFileSync(PAGE, 'utf8'))[1]);
  fixture = json;
  rows = lab.headSummary(json.attentions, { tokens: json.tokens, causal: true, decimals: 3 });
});
test.after(async () => {
  await other.close();
  await server.close();
  await browser.close();
});

const URL_PAGE = () => `${server.url}tests/browser/model-attention.html`;
const open = (opts) => openSettled(browser, URL_PAGE(), opts);
const q = (s) => `\u201c${s}\u201d`;
const inside = (p, selector) => p.locator(`#model ${selector}`);
/** What has the focus inside the widget: its role, text and data. */
const focused = (p) => p.evaluate(() => {
  const el = document.activeElement && document.activeElement.shadowRoot ? document.activeElement.shadowRoot.activeElement : null;
  return el ? { role: el.getAttribute('role') || el.localName, text: el.textContent, data: { ...el.dataset }, label: el.getAttribute('aria-label') } : null;
});

test('the model view shows every head; a click opens it, and its readout and CSV export give the fixture\'s numbers', async () => {
  const { page: p, problems, close } = await open();
  const [L, H] = [fixture.attentions.length, fixture.attentions[0].length];
  assert.equal(await inside(p, '[role="gridcell"].al-thumb').count(), L * H);
  assert.equal(await p.$eval('#model', (el) => el.state.view), 'model');
  // Each thumbnail's name carries the engine's scores.
  const label = await inside(p, '.al-thumb[data-layer="1"][data-head="0"]').getAttribute('aria-label');
  assert.match(label, new RegExp(`^layer 1, head 0: previous token ${rows[4].previousToken.toFixed(2)}, .*prefix matching ${rows[4].prefixMatching.toFixed(2)}`));
  await inside(p, '.al-thumb[data-layer="1"][data-head="0"]').click();
  assert.equal(await inside(p, '.al-open-title').textContent(), 'layer 1, head 0');
  assert.deepEqual(await p.$eval('#model', (el) => [el.state.layer, el.state.head]), [1, 0]);
  const pattern = fixture.attentions[1][0];
  const tokens = fixture.tokens;
  // A token that occurs twice ("ĠJohn" at 3 and 9, "Ġto" at 5 and 13) is named with its position.
  const named = (k) => (tokens.indexOf(tokens[k]) !== tokens.lastIndexOf(tokens[k]) ? `${q(tokens[k])} (${k})` : q(tokens[k]));
  assert.equal(named(9), `${q('\u0120John')} (9)`);
  for (const [i, j] of [[9, 4], [13, 6], [0, 0], [5, 2], [9, 3]]) {
    await inside(p, `[role="gridcell"][data-row="${i}"][data-col="${j}"]`).hover();
    assert.equal(await inside(p, '.al-open-head .al-readout').textContent(), `query ${named(i)} \u2192 key ${named(j)}: ${pattern[i][j].toFixed(3)}`);
  }
  await inside(p, '[role="gridcell"][data-row="2"][data-col="5"]').hover();
  assert.equal(await inside(p, '.al-open-head .al-readout').textContent(), `query ${named(2)} \u2192 key ${named(5)}: masked, weight 0`);
  // CSV: every number exactly the fixture's.
  await inside(p, '.al-open-head .al-export-button').click();
  const [download] = await Promise.all([p.waitForEvent('download'), inside(p, '.al-open-head [data-export="csv"]').click()]);
  assert.equal(download.suggestedFilename(), 'attention-weights-layer-1-head-0.csv');
  const csv = parseCSV(fs.readFileSync(await download.path(), 'utf8').slice(1));
  assert.deepEqual(csv[0].slice(1, -1), tokens.map((t) => t));
  assert.deepEqual(csv.slice(1).map((r) => r[0]), tokens);
  assert.deepEqual(csv.slice(1).map((r) => r.slice(1, 1 + tokens.length).map(Number)), pattern);
  assert.match(csv[1][csv[1].length - 1], /^layer 1, head 0\. Rows: query tokens; columns: key tokens; each row sums to 1; causal/);
  assert.deepEqual(problems, []);
  await close();
});

test('the head view draws a colour per head; hovering a token keeps its lines and says where each head puts its weight', async () => {
  const { page: p, problems, close } = await open({ width: 1280 });
  await inside(p, '[role="tab"]:has-text("Head view")').click();
  assert.equal(await inside(p, '.al-token-left .al-token').count(), fixture.tokens.length);
  assert.equal(await inside(p, '.al-head-picks input[type="checkbox"]:checked').count(), 4);
  const painted = () => p.$eval('#model', (el) => {
    const c = el.shadowRoot.querySelector('.al-lines');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let k = 3; k < d.length; k += 4) if (d[k] > 0) n += 1;
    return n;
  });
  const all = await painted();
  assert.ok(all > 1000, `lines are drawn (${all} pixels)`);
  await inside(p, '.al-token-left .al-token >> nth=9').hover();
  const one = await painted();
  assert.ok(one > 0 && one < all / 2, `one token's lines only (${one} of ${all} pixels)`);
  const layer0 = fixture.attentions[0];
  const best = layer0.map((head) => {
    const row = head[9];
    const w = Math.max(...row);
    return `head ${layer0.indexOf(head)} ${w.toFixed(2)} on ${q(fixture.tokens[row.indexOf(w)])}`;
  });
  assert.equal(await inside(p, '.al-head-view .al-readout').textContent(), `${q('ĠJohn')} (query 9), layer 0: ${best.join('; ')}.`);
  // Choosing heads: one head, then another layer.
  await inside(p, 'button:has-text("no heads")').click();
  assert.equal(await painted(), 0);
  await inside(p, '.al-head-picks label:has-text("head 1")').click();
  await inside(p, '.al-head-view label:has-text("layer") select').selectOption('2');
  assert.deepEqual(await p.$eval('#model', (el) => [el.state.headViewLayer, el.state.heads]), [2, [1]]);
  assert.ok(await painted() > 0);
  assert.deepEqual(problems, []);
  await close();
});

test('the head summary shows the engine\'s scores, sorts by a score and filters by one; a head\'s name opens it', async () => {
  const { page: p, problems, close } = await open();
  await inside(p, '[role="tab"]:has-text("Summary")').click();
  const table = () => p.$eval('#model', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-summary-table tbody tr'),
    (tr) => [tr.querySelector('th').textContent, ...Array.from(tr.querySelectorAll('td'), (td) => td.textContent)]));
  const expected = rows.map((r) => [`layer ${r.layer}, head ${r.head}`, ...['previousToken', 'firstToken', 'diagonal', 'prefixMatching', 'entropy'].map((k) => r[k].toFixed(3))]);
  assert.deepEqual(await table(), expected);
  await inside(p, 'thead button.al-sort:has-text("previous token")').click();
  assert.equal(await p.$eval('#model', (el) => `${el.state.sort} ${el.state.dir}`), 'previousToken descending');
  const byPrevious = (await table()).map((r) => r[0]);
  assert.deepEqual(byPrevious.slice(0, 2), ['layer 0, head 1', 'layer 2, head 2']);
  assert.equal(await inside(p, 'th[aria-sort="descending"]').textContent(), 'previous token \u25bc');
  await inside(p, '.al-head-summary select >> nth=1').selectOption('prefixMatching');
  await inside(p, '.al-head-summary input[type="number"]').fill('0.5');
  await inside(p, '.al-head-summary input[type="number"]').press('Tab');
  assert.deepEqual((await table()).map((r) => r[0]), ['layer 1, head 0']);
  assert.match(await inside(p, '.al-head-summary > p.al-muted >> nth=0').textContent(), /^1 of 12 heads: prefix matching at least 0\.5/);
  await inside(p, 'button.al-open-link:has-text("layer 1, head 0")').click();
  assert.equal(await p.$eval('#model', (el) => el.state.view), 'model');
  assert.equal(await inside(p, '.al-open-title').textContent(), 'layer 1, head 0');
  assert.deepEqual(problems, []);
  await close();
});

test('with the keyboard alone: tabs, the grid of heads, opening one, reading its cells, tokens in the head view and the summary', async () => {
  const { page: p, problems, close } = await open();
  await p.keyboard.press('Tab');
  assert.deepEqual((await focused(p)).role, 'tab');
  await p.keyboard.press('Tab');
  let f = await focused(p);
  assert.deepEqual([f.role, f.data.layer, f.data.head], ['gridcell', '0', '0']);
  for (const key of ['ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowDown', 'ArrowUp', 'End']) await p.keyboard.press(key);
  f = await focused(p);
  assert.deepEqual([f.data.layer, f.data.head], ['1', '3']);
  await p.keyboard.press('Enter');
  assert.equal(await inside(p, '.al-open-title').textContent(), 'layer 1, head 3');
  assert.equal(await inside(p, '.al-sr[aria-live="polite"]').last().textContent(), 'Opened layer 1, head 3 below the heads.');
  // On into the heatmap: its cells read out with the arrow keys.
  for (let i = 0; i < 6 && (await focused(p)).role !== 'gridcell' || (await focused(p)).data.row === undefined; i++) await p.keyboard.press('Tab');
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('ArrowDown');
  assert.equal(await inside(p, '.al-open-head .al-readout').textContent(), `query ${q(fixture.tokens[2])} \u2192 key ${q(fixture.tokens[0])}: ${fixture.attentions[1][3][2][0].toFixed(3)}`);
  // Back to the tabs, then arrows switch views.
  await p.keyboard.press('Shift+Tab');
  await p.keyboard.press('Shift+Tab');
  while ((await focused(p)).role !== 'tab') await p.keyboard.press('Shift+Tab');
  await p.keyboard.press('ArrowRight');
  assert.equal(await p.$eval('#model', (el) => el.state.view), 'heads');
  // Tab on to the first token of the head view; focusing it keeps only its lines.
  for (let i = 0; i < 20 && !((await focused(p)).data.side); i++) await p.keyboard.press('Tab');
  f = await focused(p);
  assert.deepEqual([f.data.side, f.data.index], ['query', '0']);
  assert.match(await inside(p, '.al-head-view .al-readout').textContent(), /^\u201cWhen\u201d \(query 0\), layer 0: head 0 1\.00 on \u201cWhen\u201d/);
  await p.keyboard.press('Tab');
  assert.match(await inside(p, '.al-head-view .al-readout').textContent(), /^\u201c\u0120Mary\u201d \(query 1\)/);
  // The summary: sort with the menu, open a head with Enter.
  while ((await focused(p)).role !== 'tab') await p.keyboard.press('Shift+Tab');
  await p.keyboard.press('End');
  assert.equal(await p.$eval('#model', (el) => el.state.view), 'summary');
  await p.keyboard.press('Tab');
  assert.equal((await focused(p)).role, 'select');
  await p.keyboard.type('p');  // a select's type-ahead: the first option starting with p
  assert.equal(await p.$eval('#model', (el) => el.state.sort), 'previousToken');
  for (let i = 0; i < 12 && !(await focused(p)).text.startsWith('layer 0, head 1'); i++) await p.keyboard.press('Tab');
  await p.keyboard.press('Enter');
  assert.deepEqual(await p.$eval('#model', (el) => [el.state.view, el.state.layer, el.state.head]), ['model', 0, 1]);
  assert.deepEqual(problems, []);
  await close();
});

test('bad data shows the element\'s own message, fast, naming the problem; the page and the engine go on', async () => {
  const { page: p, problems, close } = await open();
  const attempts = [
    [{ tokens: ['a', 'b'], attentions: [[[1, 0], [0.5]]] }, 'attentions is ragged: attentions[0][1] has 1 entries but the first has 2; expected one size throughout'],
    [{ tokens: ['a', 'b', 'c'], attentions: [[[1, 0], [0.5, 0.5]]] }, 'tokens has 3 entries but each attention pattern has 2 columns (keys); expected one token per key'],
    [{ tokens: ['a', 'b'], attentions: [[[1, 0], [0.5, 0.4]]], layerNames: ['enc'], headNames: ['h'] },
      'enc, h, row 1 (query \u201cb\u201d) sums to 0.9; expected 1 within 0.001 (or all 0: a row that sees no key). If the weights were rounded, say to how many decimals ("decimals": 3)'],
    [{ tokens: ['a', 'b'], attentions: [[[1, 0], [-0.5, 1.5]]] }, 'layer 0, head 0, row 1 (query \u201cb\u201d), column 0 (key \u201ca\u201d) is -0.5; expected weights of 0 or more'],
    [{ tokens: ['a', 'b'], attentions: [[[1, 0], [NaN, 1]]] }, 'layer 0, head 0, row 1 (query \u201cb\u201d), column 0 (key \u201ca\u201d) is NaN; expected weights from 0 to 1'],
    [{ tokens: ['a', 'b'], causal: true, attentions: [[[0.5, 0.5], [0.5, 0.5]]] },
      'layer 0, head 0, row 0 (query \u201ca\u201d), column 1 (key \u201cb\u201d) is 0.5, weight on a later key, but the patterns are causal; expected 0 (at most 1e-6)'],
    [{ tokens: ['<img src=x onerror=alert(1)>'], attentions: [[[2]]] }, 'layer 0, head 0, row 0 (query \u201c<img src=x onerror=alert(1)>\u201d) sums to 2; expected 1 within 0.001 (or all 0: a row that sees no key). If the weights were rounded, say to how many decimals ("decimals": 3)'],
    [{ tokens: Array.from({ length: 300 }, (_, i) => `t${i}`), attentions: [[[1]]] }, '300 tokens is too many to draw; give at most 256'],
  ];
  for (const [data, message] of attempts) {
    const result = await p.$eval('#model', (el, d) => new Promise((resolve) => {
      const t0 = performance.now();
      el.addEventListener('al-error', (e) => resolve({ ms: performance.now() - t0, detail: e.detail.message, shown: el.shadowRoot.querySelector('[part="message"]').textContent,
        images: el.shadowRoot.querySelectorAll('img').length }), { once: true });
      el.data = d;
    }), data);
    assert.equal(result.detail, `<model-attention>: ${message}`);
    assert.equal(result.shown, `This widget could not be shown. <model-attention>: ${message}`);
    assert.equal(result.images, 0, 'nothing from the data becomes markup');
    // Not a speed target (bench:site has those): the message must not wait on a timer or a load.
    assert.ok(result.ms < 15000, `message without a wait (${result.ms.toFixed(0)} ms)`);
  }
  // Good data again: the widget draws, so the engine is still usable.
  await p.$eval('#model', (el) => { el.data = { tokens: ['a', 'b'], attentions: [[[1, 0], [0.25, 0.75]]] }; });
  await p.waitForFunction(() => document.querySelector('#model').status === 'ready');
  assert.equal(await inside(p, '.al-thumb').count(), 1);
  assert.deepEqual(problems.filter((x) => !x.startsWith('console error: <model-attention>') && !x.includes('could not be shown')), []);
  await close();
});

/** A page with one <model-attention> holding `data` inline. */
function pageWith(data, extra = '') {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="hosts/icon.svg"><title>t</title><script src="../../dist/attention-lab.js"></script></head>
<body><model-attention id="model"${extra}><script type="application/json">${JSON.stringify(data)}</script></model-attention></body></html>`;
}

test('12 layers x 12 heads over 128 tokens (float16 base64) draws its first view with no main-thread task over 50 ms, and a head opens in under 100 ms', async (t) => {
  // What the widget does with the data, from `data` set to the first view: decoding, the
  // engine's check and scores, painting 144 thumbnails. Getting 6.3 MB into a page at all
  // (inline JSON, a src file) costs the browser its own long tasks before the widget runs:
  // the README gives those figures.
  const tokens = Array.from({ length: 128 }, (_, i) => `\u0120w${i % 40}`);
  const kinds = Array.from({ length: 12 }, (_, l) => Array.from({ length: 12 }, (__, h) => ['random', 'previous', 'sink', 'broad', 'induction'][(l + h) % 5]));
  const set = attentionSet(lab, { tokens, kinds, causal: true, seed: 5 });
  const text = JSON.stringify({ tokens, causal: true, attentions: base64Form(set, 'float16') });
  const w = await watchedPage(browser);
  await w.page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, ms: Math.round(e.duration) }); }).observe({ type: 'longtask', buffered: true });
  });
  await w.page.goto(URL_PAGE());
  await settled(w.page);
  await w.page.evaluate((json) => { window.big = JSON.parse(json); }, text);
  await w.page.waitForTimeout(500);
  const trace = await traceTasks(w.page);
  const ready = await w.page.$eval('#model', (el) => new Promise((resolve) => {
    window.since = performance.now();
    el.addEventListener('al-ready', () => resolve(performance.now() - window.since), { once: true });
    el.data = window.big;
  }));
  const tasks = await trace.stop();
  assert.equal(await w.page.locator('#model .al-thumb').count(), 144);
  // Opening a head: from the click to the next frame with its heatmap drawn.
  const opening = await traceTasks(w.page);
  const times = [];
  for (const [l, h] of [[3, 4], [11, 11], [0, 7]]) {
    times.push(await w.page.$eval('#model', (el, at) => new Promise((resolve) => {
      const cell = el.shadowRoot.querySelector(`.al-thumb[data-layer="${at[0]}"][data-head="${at[1]}"]`);
      const t0 = performance.now();
      cell.click();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
    }), [l, h]));
  }
  await w.page.waitForTimeout(300);
  const openTasks = await opening.stop();
  const longTasks = await w.page.evaluate(() => window.longTasks.filter((x) => x.start >= window.since).map((x) => x.ms));
  const cpuOver = (ms) => tasks.filter((x) => x.cpu > ms).map((x) => `${Math.round(x.cpu)} (wall ${Math.round(x.wall)})`);
  const openCpu = Math.max(...openTasks.map((x) => x.cpu));
  t.diagnostic(`first view ${Math.round(ready)} ms after data was set; longtask entries (wall ms) from then on: ${JSON.stringify(longTasks)}; tasks over 30 ms of CPU until the first view: ${cpuOver(30).join(', ') || 'none'}; opening a head: ${times.map((x) => x.toFixed(1)).join(', ')} ms, longest task ${openCpu.toFixed(1)} ms of CPU (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
  // The longtask observer counts wall time, which on a busy shared machine includes waiting
  // for a core: there the trace's CPU time of each task is what the page's own work cost.
  // The targets (no task of 50 ms, a head open in 100 ms) are npm run bench:site's to report; a
  // test asserts only bounds three times as wide, in CPU time, which no loaded machine breaks but
  // work done in one piece (decoding or scoring all 144 heads in one task) does.
  assert.deepEqual(cpuOver(150), [], 'no main-thread task of 150 ms of CPU from setting the data to the first view');
  assert.ok(openCpu < 300, `opening a head takes no task of 300 ms of CPU (${openCpu.toFixed(1)})`);
  assert.equal(await w.page.$eval('#model', (el) => el.shadowRoot.querySelector('.al-open-title').textContent), 'layer 0, head 7');
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('under a strict Content-Security-Policy (with Trusted Types) it draws with no console error and no violation report', async () => {
  const w = await watchedPage(browser);
  await w.page.addInitScript(() => {
    window.violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await sendPolicy(w.page, URL_PAGE(), CSP.trustedTypes);
  await w.page.goto(URL_PAGE());
  await settled(w.page);
  assert.equal(await w.page.$eval('#model', (el) => el.status), 'ready');
  await w.page.locator('#model .al-thumb >> nth=5').click();
  await w.page.locator('#model [role="tab"]:has-text("Head view")').click();
  await w.page.locator('#model .al-token-left .al-token >> nth=3').hover();
  await w.page.locator('#model [role="tab"]:has-text("Summary")').click();
  await w.page.waitForTimeout(200);
  assert.deepEqual(await w.page.evaluate(() => window.violations), []);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('from file:// the inline data draws; a src there says why it cannot be read', async () => {
  const w = await watchedPage(browser);
  await w.page.goto(pathToFileURL(PAGE).href);
  await settled(w.page);
  assert.equal(await w.page.$eval('#model', (el) => el.status), 'ready');
  await w.page.locator('#model .al-thumb >> nth=2').click();
  assert.equal(await w.page.locator('#model .al-open-title').textContent(), 'layer 0, head 2');
  const message = await w.page.evaluate(() => new Promise((resolve) => {
    const el = document.createElement('model-attention');
    el.setAttribute('src', 'model-attention.json');
    el.addEventListener('al-error', (e) => resolve(e.detail.message), { once: true });
    document.body.append(el);
  }));
  assert.equal(message, '<model-attention>: src cannot be read on a page opened from disk (file://), which browsers do not allow; put the data in a child <script type="application/json"> instead');
  assert.deepEqual(w.problems.filter((x) => !x.includes('src cannot be read')), []);
  await w.close();
});

test('src reads a JSON file on the page\'s own origin, refuses another origin, and setAttention replaces the data keeping the view', async () => {
  const dir = path.join(root, 'test-results');
  fs.mkdirSync(dir, { recursive: true });
  const { bert, cross } = fixtures(lab);
  fs.writeFileSync(path.join(dir, 'model-attention-bert.json'), JSON.stringify({ ...bert, attentions: base64Form(bert.attentions, 'float32') }));
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="../tests/browser/hosts/icon.svg"><title>src</title><script src="../dist/attention-lab.js"></script></head>
<body><model-attention id="model" src="model-attention-bert.json" view="summary"></model-attention>
<model-attention id="far" src="${other.url}test-results/model-attention-bert.json"></model-attention></body></html>`;
  fs.writeFileSync(path.join(dir, 'model-attention-src.html'), html);
  const { page: p, problems, close } = await openSettled(browser, `${server.url}test-results/model-attention-src.html`);
  assert.equal(await p.$eval('#model', (el) => el.status), 'ready');
  assert.equal(await p.$eval('#model', (el) => el.state.view), 'summary');
  assert.equal(await inside(p, '.al-summary-table tbody tr').count(), 6);
  assert.equal(await p.$eval('#far', (el) => el.shadowRoot.querySelector('[part="message"]').textContent),
    `This widget could not be shown. <model-attention>: src is on another origin (${other.url.replace(/\/$/, '')}); expected a file on this page's own origin (${server.url.replace(/\/$/, '')})`);
  // setAttention: cross-attention data replaces the set; the summary stays the view.
  await p.$eval('#model', (el, data) => el.setAttention(data), { ...cross, attentions: nested(cross.attentions) });
  assert.equal(await p.$eval('#model', (el) => el.state.view), 'summary');
  assert.deepEqual(await p.$eval('#model', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-summary-table thead th'), (th) => th.textContent.replace(/ [\u25b2\u25bc]$/, ''))), ['head', 'entropy (nats)']);
  const refused = await p.$eval('#model', (el) => el.setAttention({ tokens: ['a'], attentions: [[[0.5]]] }).then(() => 'drawn', (err) => err.message));
  assert.equal(refused, '<model-attention>: layer 0, head 0, row 0 (query \u201ca\u201d) sums to 0.5; expected 1 within 0.001 (or all 0: a row that sees no key). If the weights were rounded, say to how many decimals ("decimals": 3)');
  assert.equal(await p.$eval('#model', (el) => el.status), 'ready', 'a refused setAttention leaves the views as they were');
  assert.deepEqual(problems.filter((x) => !x.includes('src is on another origin')), []);
  await close();
});
