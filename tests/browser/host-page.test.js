'use strict';
// The widgets on pages we did not write: hostile CSS, anchors and fragments the page uses,
// widgets made and changed by the page's own script, strict CSP and Trusted Types, frames,
// a <base href> on another origin, and bad data. In Debian's Chromium.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { launch, watchedPage, settled, openSettled, sendPolicy, CSP, TAGS } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');

const root = path.resolve(__dirname, '..', '..');

let browser, server, other;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  other = await startServer({ root });  // a second origin (another port)
});
test.after(async () => {
  await other.close();
  await server.close();
  await browser.close();
});

const host = (name) => `${server.url}tests/browser/hosts/${name}`;

const statuses = (page) => page.$$eval(TAGS.join(','), (els) => els.map((el) => `${el.id || el.localName}:${el.status}`));

const open = (url, opts) => openSettled(browser, url, opts);

test('host CSS cannot reach inside a widget, and widget CSS does not leak onto the page', async () => {
  const { page, problems, close } = await open(host('hostile.html'));
  assert.deepEqual(await statuses(page), ['stepper:ready', 'heatmap:ready', 'scaling:ready']);
  // The page hides every table, grid and canvas and styles every div: not ours.
  assert.equal(await page.locator('#stepper table').first().isVisible(), true, "the stepper's table is visible");
  assert.equal(await page.locator('#heatmap [role="grid"]').isVisible(), true, 'the heatmap grid is visible');
  const cell = await page.$eval('#heatmap [role="gridcell"]', (c) => {
    const r = c.getBoundingClientRect();
    const s = getComputedStyle(c);
    return { w: r.width, h: r.height, transform: s.textTransform, spacing: s.letterSpacing };
  });
  assert.ok(cell.w >= 30 && cell.w <= 50 && Math.abs(cell.w - cell.h) < 1, `cells stay square and at their own size under a 64px root font (${cell.w} x ${cell.h})`);
  assert.equal(cell.transform, 'none');
  assert.equal(cell.spacing, 'normal');
  const narration = await page.$eval('#stepper .al-narration', (p) => getComputedStyle(p).color);
  assert.notEqual(narration, 'rgba(0, 0, 0, 0)', 'the page making paragraphs transparent does not blank the narration');
  await page.locator('#scaling svg').first().waitFor({ timeout: 20000 });
  assert.equal(await page.locator('#scaling svg').first().isVisible(), true, 'charts are visible');
  // The page's custom property themes the widget on purpose.
  const accent = await page.$eval('#stepper button.al-primary', (b) => getComputedStyle(b).backgroundColor);
  assert.equal(accent, 'rgb(200, 0, 0)', '--al-accent set on :root reaches the widget');
  // Nothing of ours lands on the page's own elements with our class names.
  const probes = await page.$$eval('.probe', (els) => els.map((el) => {
    const s = getComputedStyle(el);
    return [el.id, s.backgroundColor, s.borderTopWidth];
  }));
  assert.deepEqual(probes, [
    ['probe-before', 'rgba(0, 0, 0, 0)', '0px'],
    ['probe-button', 'rgb(239, 239, 239)', '2px'],
    ['probe-table', 'rgba(0, 0, 0, 0)', '0px'],
    ['probe-h3', 'rgba(0, 0, 0, 0)', '0px'],
    ['probe-after', 'rgba(0, 0, 0, 0)', '0px'],
  ]);
  assert.equal(await page.$eval('#probe-table', (t) => getComputedStyle(t).display), 'none', "the page's own rule still applies to its own table");
  assert.deepEqual(await page.evaluate(() => document.adoptedStyleSheets.length + document.styleSheets.length), 1, 'no stylesheet added to the page');
  assert.deepEqual(problems, []);
  await close();
});

test("the page's fragment and anchors keep working; state goes to the query string, and only for unique ids", async () => {
  const { page, problems, close } = await open(`${host('anchors.html')}#below`);
  assert.equal(await page.evaluate(() => location.hash), '#below');
  const top = await page.$eval('#below', (el) => Math.round(el.getBoundingClientRect().top));
  assert.ok(Math.abs(top) <= 2, `the #below anchor is still at the top of the view after the widgets loaded (top = ${top})`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.click('#first label:has-text("causal mask")');
  await page.click('#dup label:has-text("causal mask")');
  await page.click('#off label:has-text("causal mask")');
  await page.click('multihead-view label:has-text("forget the head transpose")');
  await page.click('#second button:has-text("Next")');
  await page.waitForFunction(() => /second\.step=1/.test(location.search), null, { timeout: 3000 });
  await page.waitForTimeout(400);
  const url = new URL(page.url());
  assert.equal(url.hash, '#below', 'the fragment is untouched');
  const keys = [...url.searchParams.keys()].sort();
  assert.deepEqual(keys.filter((k) => k.startsWith('first.')), ['first.causal', 'first.numbers', 'first.scaling', 'first.self', 'first.temperature']);
  assert.ok(keys.every((k) => !k.startsWith('dup.') && !k.startsWith('off.')), `no state for a duplicate id or url-state="off" (${keys.join(', ')})`);
  assert.ok(keys.every((k) => /^(first|second)\./.test(k)), 'a widget without an id writes nothing');
  // The page's own links still scroll to their anchors.
  await page.click('#to-below');
  assert.equal(await page.evaluate(() => location.hash), '#below');
  assert.ok(Math.abs(await page.$eval('#below', (el) => el.getBoundingClientRect().top)) <= 2);
  // The shared link reopens the state, fragment and all.
  const shared = page.url();
  const again = await open(shared);
  assert.equal(await again.page.$eval('#first', (el) => el.state.causal), true);
  assert.equal(await again.page.$eval('#second', (el) => el.state.stepIndex), 1);
  assert.equal(await again.page.$eval('#dup', (el) => el.state.causal), false);
  await again.close();
  assert.equal(problems.filter((p) => !/more than one element has id="dup"/.test(p)).length, 0, problems.join('\n'));
  await close();
});

test('a malformed or hostile fragment or query is ignored, never an error on screen', async () => {
  for (const suffix of ['#100%', '#%E0%A4%A', '?first.causal=%&first.temp=99#x', '#first.causal=1&first.scaling=<img src=x onerror=alert(1)>', `?${'a=1&'.repeat(3000)}`]) {
    const { page, problems, close } = await open(`${host('anchors.html')}${suffix}`);
    assert.deepEqual(await page.$$eval('.al-error', (els) => els.map((e) => e.textContent)), [], suffix);
    assert.ok((await statuses(page)).every((s) => s.endsWith(':ready')), suffix);
    assert.equal(await page.$eval('#first', (el) => el.state.scaling), 'sqrt', `${suffix}: a bad value falls back`);
    assert.equal(await page.locator('img').count(), 0);
    assert.deepEqual(problems.filter((p) => !/more than one element/.test(p)), [], suffix);
    await close();
  }
});

test('widgets made, changed, moved and fed by the page script follow every change', async () => {
  const lab = await loadAttentionLab();
  const { page, problems, close } = await open(host('live.html'));
  const w = (tokens, causal) => lab.attention(...['Q', 'K', 'V'].map((k) => lab.examples().timeFlies[k]), { causal }).weights;
  // An attribute set right after append() is used.
  await page.evaluate(() => {
    window.events = [];
    document.addEventListener('al-ready', (e) => window.events.push(['ready', e.target.id, e.composed]));
    document.addEventListener('al-change', (e) => window.events.push(['change', e.target.id, JSON.stringify(e.detail.state)]));
    document.addEventListener('al-error', (e) => window.events.push(['error', e.target.id, e.detail.message]));
    const el = document.createElement('attention-heatmap');
    el.id = 'late';
    document.querySelector('main').append(el);
    el.setAttribute('tokens', 'one two three');
  });
  await settled(page);
  assert.deepEqual(await page.$$eval('#late [role="rowheader"]', (els) => els.map((e) => e.textContent)), ['one', 'two', 'three']);
  // Later attribute changes: causal updates in place (and says so); tokens rebuild.
  await page.evaluate(() => document.querySelector('#late').setAttribute('causal', ''));
  assert.equal(await page.$eval('#late', (el) => el.state.causal), true);
  assert.equal(await page.$eval('#late', (el) => el.causal), true, 'the property mirrors the attribute');
  await page.evaluate(() => { document.querySelector('#late').causal = false; });
  assert.equal(await page.$eval('#late', (el) => el.getAttribute('causal')), 'false', 'the property reflects to the attribute');
  assert.equal(await page.$eval('#late', (el) => el.state.causal), false);
  await page.evaluate(() => document.querySelector('#late').setAttribute('tokens', 'a b c d'));
  await page.waitForFunction(() => document.querySelector('#late').shadowRoot.querySelectorAll('[role="rowheader"]').length === 4);
  // A child JSON script appended after the element, then edited, then removed.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.type = 'application/json';
    s.textContent = JSON.stringify({ Q: [[1, 0], [0, 1], [1, 1]], K: [[1, 0], [0, 1], [1, 1]], V: [[1], [2], [3]] });
    const el = document.querySelector('#late');
    el.removeAttribute('tokens');
    el.append(s);
  });
  await page.waitForFunction(() => Array.from(document.querySelector('#late').shadowRoot.querySelectorAll('[role="rowheader"]'), (e) => e.textContent).join() === 't1,t2,t3');
  const want = lab.attention([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]]).weights;
  assert.equal(await page.$eval('#late [role="gridcell"]', (c) => c.textContent), want.get(0, 0).toFixed(2));
  await page.evaluate(() => { document.querySelector('#late script').textContent = JSON.stringify({ tokens: ['p', 'q'], Q: [[1, 0], [0, 1]], K: [[1, 0], [0, 1]], V: [[1], [2]] }); });
  await page.waitForFunction(() => Array.from(document.querySelector('#late').shadowRoot.querySelectorAll('[role="rowheader"]'), (e) => e.textContent).join() === 'p,q');
  // A null Q next to K and V is an error, not the example; wrong option types too.
  await page.evaluate(() => { document.querySelector('#late').data = { Q: null, K: [[1]], V: [[1]] }; });
  await page.waitForFunction(() => document.querySelector('#late').status === 'error');
  assert.equal(await page.textContent('#late .al-error-message'), '<attention-heatmap>: Q is null; expected nested arrays of numbers');
  await page.evaluate(() => { document.querySelector('#late').data = { tokens: ['a', 'b'], options: { causal: 'yes' } }; });
  await page.waitForFunction(() => /options\.causal is "yes"; expected true or false/.test(document.querySelector('#late').shadowRoot.textContent));
  await page.evaluate(() => { document.querySelector('#late').data = { tokens: ['a', 'b'], options: { temperature: 'hot' } }; });
  await page.waitForFunction(() => /options\.temperature is "hot"/.test(document.querySelector('#late').shadowRoot.textContent));
  // The data property with good data, then removed: back to the child JSON.
  await page.evaluate(() => { document.querySelector('#late').data = { tokens: ['x', 'y'], Q: [[1], [2]], K: [[1], [2]], V: [[1], [2]], options: { causal: true } }; });
  await page.waitForFunction(() => document.querySelector('#late').status === 'ready');
  assert.equal(await page.$eval('#late', (el) => el.state.causal), false, 'the causal="false" attribute wins over the data option');
  await page.evaluate(() => document.querySelector('#late').removeAttribute('causal'));
  assert.equal(await page.$eval('#late', (el) => el.state.causal), true, 'without the attribute, the data option applies');
  // Remove and re-add: the view and its state survive, listeners work, events fire once.
  await page.evaluate(() => {
    const el = document.querySelector('#late');
    el.remove();
    window.events.length = 0;
    document.querySelector('main').prepend(el);
  });
  await page.click('#late label:has-text("numbers")');
  await page.waitForTimeout(50);
  const changes = await page.evaluate(() => window.events.filter((e) => e[0] === 'change'));
  assert.equal(changes.length, 1, `one al-change per click after re-adding (${JSON.stringify(changes)})`);
  assert.equal(JSON.parse(changes[0][2]).numbers, false);
  assert.equal(JSON.parse(changes[0][2]).causal, true, 'the state survived the move');
  // Taken off the page while it redraws (new data), and put back later: it finishes
  // drawing then, with the new data.
  await page.evaluate(async () => {
    const el = document.querySelector('#late');
    el.data = { tokens: ['p', 'q'], Q: [[1], [2]], K: [[1], [2]], V: [[1], [2]] };
    await new Promise((resolve) => queueMicrotask(resolve));  // the redraw has begun: it waits for its turn
    window.removedLate = el;
    el.remove();
  });
  await page.waitForTimeout(500);
  await page.evaluate(() => document.querySelector('main').prepend(window.removedLate));
  await page.waitForFunction(() => document.querySelector('#late').status === 'ready', null, { timeout: 10000 });
  assert.deepEqual(await page.$$eval('#late [role="rowheader"]', (els) => els.map((e) => e.textContent)), ['p', 'q']);
  await page.evaluate(() => { window.events.length = 0; });
  // Properties set before the element is defined are picked up (upgrade).
  await page.evaluate(() => {
    const el = document.createElement('softmax-demo');
    el.id = 'early';
    el.values = '1, 2, 3';
    document.querySelector('main').append(el);
  });
  await settled(page);
  assert.equal(await page.$eval('#early', (el) => el.state.values), '1, 2, 3');
  const readies = await page.evaluate(() => window.events.filter((e) => e[0] === 'ready'));
  assert.deepEqual(readies, [['ready', 'early', true]], 'al-ready bubbles, is composed, and fires once per drawing');
  assert.deepEqual(problems.filter((p) => !/^console/.test(p)), []);
  assert.ok(w);
  await close();
});

// The 100 ms target is measured by npm run bench:site; here a generous bound only catches a
// frozen page on a loaded machine.
test('bad data on the page: a readable message naming the widget, quickly, never a frozen page', async () => {
  const { page, close } = await open(host('live.html'));
  await page.evaluate(() => { window.deep = JSON.parse(`{"Q": ${'['.repeat(100000)}${']'.repeat(100000)}, "K": [[1]], "V": [[1]]}`); });
  const cases = [
    ['a 1 MB token', (el) => el.setAttribute('tokens', 'x'.repeat(1e6)), /^<attention-heatmap>: the tokens attribute is 1000000 characters long; expected at most 20000$/],
    ['300 tokens', (el) => el.setAttribute('tokens', Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ')), /^<attention-heatmap>: 300 tokens is too many to draw; give at most 256$/],
    ['a long word', (el) => el.setAttribute('tokens', `short ${'y'.repeat(100)}`), /^<attention-heatmap>: token 2 is 100 characters long; expected at most 40$/],
    ['100,000-deep JSON', (el) => { el.data = window.deep; }, /^<attention-heatmap>: Q is nested more than 6 arrays deep/],
    ['NaN in Q', (el) => { el.data = { Q: [[NaN]], K: [[1]], V: [[1]] }; }, /^<attention-heatmap>: .*Q.*/],
    ['Infinity in V', (el) => { el.data = { Q: [[1]], K: [[1]], V: [[Infinity]] }; }, /^<attention-heatmap>: .*V.*/],
    ['a string for Q', (el) => { el.data = { Q: 'abc', K: [[1]], V: [[1]] }; }, /^<attention-heatmap>: .*Q.*/],
    ['a bad causal attribute', (el) => el.setAttribute('causal', 'perhaps'), /^<attention-heatmap>: causal="perhaps" is not valid; expected true or false/],
  ];
  for (const [name, act, message] of cases) {
    const result = await page.evaluate(async (src) => {
      const el = document.createElement('attention-heatmap');
      document.querySelector('main').append(el);
      await new Promise((r) => el.addEventListener('al-ready', r, { once: true }));
      const t0 = performance.now();
      const done = new Promise((r) => el.addEventListener('al-error', (e) => r(e.detail.message), { once: true }));
      (0, eval)(`(${src})`)(el);
      const text = await done;
      const ms = performance.now() - t0;
      el.remove();
      return { text, ms, shown: text };
    }, act.toString());
    assert.match(result.text, message, name);
    // Not a speed target (bench:site has those): the message must not wait on a timer or a load.
    assert.ok(result.ms < 15000, `${name}: message without a wait (took ${result.ms.toFixed(1)} ms)`);
  }
  await close();
});

for (const [policy, label] of [[CSP.strict, 'strict CSP'], [CSP.trustedTypes, 'strict CSP with Trusted Types']]) {
  test(`every widget works under ${label} with no console error and no violation report`, async () => {
    const w = await watchedPage(browser);
    await w.page.addInitScript(() => {
      window.violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await sendPolicy(w.page, host('all-widgets.html'), policy);
    await w.page.goto(host('all-widgets.html'));
    await settled(w.page);
    assert.deepEqual(await statuses(w.page), TAGS.map((t) => `${{ 'attention-stepper': 'w-stepper', 'attention-heatmap': 'w-heatmap', 'attention-worked-example': 'w-worked', 'scaling-experiment': 'w-scaling', 'multihead-view': 'w-heads', 'shape-tracer': 'w-shapes', 'padding-mask': 'w-padding', 'softmax-demo': 'w-softmax', 'mistakes-lab': 'w-mistakes', 'position-lab': 'w-position', 'online-softmax-stepper': 'w-online', 'kv-cache-stepper': 'w-kvcache', 'cost-lab': 'w-cost', 'model-attention': 'w-model', 'attention-trainer': 'w-trainer', 'position-race': 'w-race' }[t]}:ready`));
    // Use them: formulas, steps, masks, prompts.
    await w.page.click('#w-stepper button:has-text("Next")');
    await w.page.click('#w-heatmap label:has-text("causal mask")');
    await w.page.click('#w-softmax button:has-text("NaN: it overflows")');
    await w.page.click('#w-heads label:has-text("forget the head transpose")');
    await w.page.click('#w-mistakes button:has-text("every cell")');
    await w.page.click('#w-online button:has-text("Next")');
    await w.page.click('#w-kvcache button:has-text("Next token")');
    await w.page.click('#w-model .al-thumb >> nth=1');
    await w.page.click('#w-model [role="tab"]:has-text("Head view")');
    await w.page.waitForTimeout(300);
    assert.deepEqual(await w.page.evaluate(() => window.violations), []);
    assert.deepEqual(w.problems, []);
    await w.close();
  });
}

test('without wasm-unsafe-eval the engine is tried once and each widget says so in one plain sentence', async () => {
  const w = await watchedPage(browser);
  const { warnings } = w;
  await w.page.addInitScript(() => {
    window.compiles = 0;
    for (const name of ['instantiate', 'compile', 'instantiateStreaming', 'compileStreaming']) {
      const original = WebAssembly[name];
      if (original) WebAssembly[name] = function (...args) { window.compiles += 1; return original.apply(this, args); };
    }
  });
  await sendPolicy(w.page, host('all-widgets.html'), CSP.noWasm);
  await w.page.goto(host('all-widgets.html'));
  await settled(w.page);
  const messages = await w.page.$$eval(TAGS.join(','), (els) => els.map((el) => el.shadowRoot.querySelector('[part="message"]').textContent));
  assert.deepEqual(messages, TAGS.map(() => 'This page\u2019s security settings block WebAssembly, which these diagrams need.'));
  assert.equal(await w.page.evaluate(() => window.compiles), 1, 'the engine is tried once per page');
  assert.equal(warnings.filter((t) => t.startsWith('attention-lab')).length, 1, `one technical line in the console: ${warnings.join(' | ')}`);
  assert.ok(w.problems.every((p) => /Content Security Policy|WebAssembly|wasm/i.test(p)), w.problems.join('\n'));
  await w.close();
});

test('inside sandboxed and srcdoc frames, and under a <base href> on another origin, widgets work and nothing throws', async () => {
  const w = await watchedPage(browser);
  const errors = [];
  w.page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await w.page.goto(`${host('frames.html')}?dist=${encodeURIComponent(`${other.url}dist/`)}`);
  for (const id of ['sandboxed', 'srcdoc']) {
    const frame = w.page.frameLocator(`#${id}`);
    await frame.locator('#inner [role="gridcell"]').first().waitFor({ timeout: 20000 });
    await frame.locator('#inner label:has-text("causal mask")').click();
    await frame.locator('#inner label:has-text("numbers")').click();
    assert.equal(await frame.locator('#inner [role="gridcell"].al-masked').count(), 3, `${id}: the mask applied`);
  }
  await w.page.waitForTimeout(400);
  assert.deepEqual(errors, []);
  await w.close();

  const b = await open(host('base-href.html'));
  await b.page.click('#based label:has-text("causal mask")');
  await b.page.waitForFunction(() => /based\.causal=1/.test(location.search), null, { timeout: 3000 });
  assert.equal(new URL(b.page.url()).origin, new URL(server.url).origin, 'the URL stays on the page origin');
  assert.deepEqual(b.problems, []);
  await b.close();
});

test('the page does not jump as widgets load: layout shift of the load on every lesson page and a page of one of each', async () => {
  const pages = ['hosts/all-widgets.html', ...require('../../scripts/build-site.js').PAGES.map((p) => `../../dist/${p.file}`)];
  for (const width of [1280, 390]) {
    for (const p of pages) {
      const w = await watchedPage(browser, { width, height: 900 });
      await w.page.addInitScript(() => {
        window.cls = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) if (!e.hadRecentInput) window.cls += e.value;
        }).observe({ type: 'layout-shift', buffered: true });
      });
      await w.page.goto(`${server.url}tests/browser/${p}`);
      // The load's shift, as Lighthouse measures it: the widgets a load draws are those within a
      // screen of the viewport (the kit starts the rest as the reader scrolls near them).
      await w.page.evaluate(() => new Promise((resolve) => {
        const io = new IntersectionObserver((entries) => {
          io.disconnect();
          resolve(entries.filter((e) => e.isIntersecting).map((e) => e.target));
        }, { rootMargin: '100% 100% 100% 100%' });
        for (const el of document.querySelectorAll('*')) if (el.localName.includes('-')) io.observe(el);
      }).then((near) => { window.nearWidgets = near; }));
      await w.page.waitForFunction(() => window.nearWidgets.every((el) => el.status === 'ready'), null, { timeout: 120000 });
      await w.page.waitForTimeout(300);
      const cls = await w.page.evaluate(() => window.cls);
      assert.ok(cls <= 0.1, `${p} at ${width} px: cumulative layout shift ${cls.toFixed(3)} (at most 0.1)`);
      await w.close();
    }
  }
});

test("a page's colour scheme, a dark background, the theme attribute and reduced motion are respected", async () => {
  const { page, problems, close } = await open(host('themes.html'));
  const look = () => page.$$eval('attention-heatmap', (els) => els.map((el) => {
    const frame = el.shadowRoot.querySelector('.al-frame');
    const [r, g, b] = getComputedStyle(frame).backgroundColor.match(/\d+/g).map(Number);
    return [el.id, (r + g + b) / 3 < 100 ? 'dark' : 'light'];
  }));
  assert.deepEqual(await look(), [['plain', 'light'], ['on-dark', 'dark'], ['scheme-dark', 'dark'], ['forced-light', 'light'], ['forced-dark', 'dark']]);
  await page.evaluate(() => document.querySelector('#forced-dark').setAttribute('theme', 'light'));
  assert.equal((await look())[4][1], 'light', 'the theme attribute is live');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  assert.equal(await page.$eval('#plain', (el) => getComputedStyle(el.shadowRoot.querySelector('.al-cell')).transitionDuration), '0s');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  assert.notEqual(await page.$eval('#plain', (el) => getComputedStyle(el.shadowRoot.querySelector('.al-cell')).transitionDuration), '0s');
  assert.deepEqual(problems, []);
  await close();
});
