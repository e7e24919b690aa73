'use strict';
// The embedding recipes in examples/, each built with its real tool (MkDocs, nbconvert, Hugo)
// or served as an author would, opened in Debian's Chromium: the widget renders the engine's
// numbers, reacts to the reader, logs no console error and fetches nothing from elsewhere.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');
const { launch, watchedPage } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { WIDGETS } = require('../../web/src/kit/manifest.js');
const { resolveInputs } = require('../../web/src/kit/inputs.js');
const { fixed } = require('../../web/src/ui/format.js');

const root = path.resolve(__dirname, '..', '..');
const dist = path.join(root, 'dist');
const examples = path.join(root, 'examples');
const shots = path.join(root, 'test-results', 'screenshots');
const SENTENCE = 'the cat sat on the mat';

let browser, lab, tmp;
test.before(async () => {
  browser = await launch();
  lab = await loadAttentionLab();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'al-recipes-'));
  fs.mkdirSync(shots, { recursive: true });
});
test.after(async () => {
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The command's path, or null when it is not installed. */
function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The kit and the stylesheet that holds the widgets' space until the deferred kit has run, into `dir`. */
function copyKit(dir) {
  for (const file of ['attention-lab.js', 'attention-lab-reserve.css']) fs.copyFileSync(path.join(dist, file), path.join(dir, file));
}

/** A fresh copy of examples/<name> in the temp folder. */
function copyExample(name) {
  const to = path.join(tmp, name);
  fs.cpSync(path.join(examples, name), to, { recursive: true });
  return to;
}

/**
 * Waits until every attention-lab element in the page (or frame) is drawn (`status` 'ready').
 * Unlike browser.js's settled(), a widget in error fails the wait with its message.
 * @returns the number of widgets
 */
async function waitForWidgets(where, { timeout = 20000 } = {}) {
  const handle = await where.waitForFunction((tags) => {
    const els = Array.from(document.querySelectorAll(tags.join(',')));
    const failed = els.find((el) => el.status === 'error');
    if (failed) {
      const box = failed.shadowRoot;
      const shown = box.querySelector('[role="alert"], [part~="message"], .al-error');
      return { error: `<${failed.localName}> shows an error: ${shown ? shown.textContent : '(no message)'}` };
    }
    // A widget starts when it comes near the viewport: one on a slide not shown (display: none,
    // or off the screen inside the deck's clipped box) waits for its slide; not waited for here.
    const shown = els.filter((el) => {
      const r = el.getBoundingClientRect();
      return el.checkVisibility({ visibilityProperty: true }) && r.right > 0 && r.left < innerWidth && r.bottom > 0 && r.top < innerHeight;
    });
    return els.length > 0 && shown.length > 0 && shown.every((el) => el.status === 'ready') && { count: els.length };
  }, Object.keys(WIDGETS), { timeout });
  const r = await handle.jsonValue();
  if (r.error) throw new Error(r.error);
  return r.count;
}

/** The cells of the n-th heatmap grid, row by row: { text, value, masked }. */
function readCells(where, index = 0) {
  return where.evaluate((i) => {
    const el = document.querySelectorAll('attention-heatmap')[i];
    const grid = (el.shadowRoot || el).querySelector('[role="grid"]');
    return Array.from(grid.querySelectorAll('[role="row"]'))
      .map((row) => Array.from(row.querySelectorAll('[role="gridcell"]')).map((c) => ({
        text: c.textContent.trim(), value: Number(c.dataset.value), masked: c.classList.contains('al-masked'),
      })))
      .filter((row) => row.length > 0);
  }, index);
}

/** Asserts the grid shows the engine's weights: each cell's text and value, and the mask. */
function assertCells(cells, weights, causal, label) {
  assert.equal(cells.length, weights.length, `${label}: one grid row per query`);
  weights.forEach((row, i) => row.forEach((w, j) => {
    const c = cells[i][j];
    assert.ok(Math.abs(c.value - w) < 1e-6, `${label}: cell (${i}, ${j}) holds ${c.value}, the engine gives ${w}`);
    const masked = causal && j > i;
    assert.equal(c.masked, masked, `${label}: cell (${i}, ${j}) masked`);
    assert.equal(c.text, masked ? '' : fixed(w, 2), `${label}: cell (${i}, ${j}) reads ${c.text}`);
  }));
}

/** The engine's weights, in node, for a heatmap given only tokens (the widget's seeded vectors). */
function weightsForTokens(sentence, causal) {
  const { Q, K, V } = resolveInputs(lab, { tokens: sentence.split(' ') }, 'attention-heatmap');
  return lab.attention(Q, K, V, { causal }).weights.toArray();
}

/**
 * The recipe's first heatmap shows the engine's numbers, and ticking "causal mask" (a click, as
 * a reader would) redraws it with the causal weights and the upper triangle masked.
 */
async function checkHeatmapReacts(where, sentence = SENTENCE) {
  assertCells(await readCells(where), weightsForTokens(sentence, false), false, 'before the click');
  const heatmap = where.locator('attention-heatmap').first();
  const box = heatmap.getByLabel('causal mask');
  assert.equal(await box.isChecked(), false);
  await box.click();
  assert.equal(await box.isChecked(), true);
  const causal = weightsForTokens(sentence, true);
  await where.waitForFunction(() => {
    const el = document.querySelector('attention-heatmap');
    return (el.shadowRoot || el).querySelectorAll('[role="gridcell"].al-masked').length > 0;
  });
  assertCells(await readCells(where), causal, true, 'after ticking causal mask');
}

/** Full-page screenshots at 1280 and 390 px: test-results/screenshots/recipe-<name>-<width>.png */
async function screenshots(page, name) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: path.join(shots, `recipe-${name}-${width}.png`), fullPage: true });
  }
}

/** Opens url in a watched page, waits for the widgets, and returns the page and what went wrong. */
async function open(url) {
  const w = await watchedPage(browser);
  await w.page.goto(url);
  await waitForWidgets(w.page);
  return w;
}

/**
 * Serves a folder over http as a web host would. Hosts answer /favicon.ico; without one,
 * Chromium asks for it and logs a 404 that no recipe caused, so an empty icon is added.
 */
function serve(dir) {
  const icon = path.join(dir, 'favicon.ico');
  if (!fs.existsSync(icon)) fs.writeFileSync(icon, '');
  return startServer({ root: dir });
}

/** The author's JSON inside the recipe file's <script type="application/json">. */
function authorJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8').match(/<script type="application\/json">([\s\S]*?)<\/script>/)[1]);
}

/** The second heatmap, made from the author's data in `source` (`read` finds it there), shows the engine's weights for it. */
async function checkJsonHeatmap(where, source, read = authorJson) {
  const { Q, K, V } = read(source);
  assertCells(await readCells(where, 1), lab.attention(Q, K, V).weights.toArray(), false, 'the JSON heatmap');
}

/** Serves a built site over http, checks its heatmaps (the JSON one when `jsonSource` is given), screenshots it. */
async function checkServedSite(siteDir, page, name, jsonSource, readJson) {
  const server = await serve(siteDir);
  try {
    const { page: p, problems, close } = await open(`${server.url}${page}`);
    assert.equal(await waitForWidgets(p), jsonSource ? 2 : 1);
    await checkHeatmapReacts(p);
    if (jsonSource) await checkJsonHeatmap(p, jsonSource, readJson);
    await screenshots(p, name);
    assert.deepEqual(problems, []);
    await close();
  } finally {
    await server.close();
  }
}

/** Whether a recipe's own npm packages are installed (node scripts/setup.js --recipes runs npm ci in its folder). */
function recipeInstalled(name, pkg) {
  return fs.existsSync(path.join(examples, name, 'node_modules', pkg, 'package.json'));
}

test('plain HTML: the page with the script and two heatmaps works from file://, with tokens and with inline JSON', async () => {
  const dir = copyExample('plain-html');
  copyKit(dir);
  const { page, problems, close } = await open(pathToFileURL(path.join(dir, 'index.html')).href);
  assert.equal(await waitForWidgets(page), 2);
  await checkHeatmapReacts(page);
  await checkJsonHeatmap(page, path.join(dir, 'index.html'));
  await screenshots(page, 'plain-html');
  assert.deepEqual(problems, []);
  await close();
});

test('MkDocs: mkdocs build puts the script in extra_javascript and the element from Markdown on the page', async (t) => {
  if (!which('mkdocs')) return t.skip('mkdocs is not installed: apt-get install mkdocs (node scripts/setup.js --recipes)');
  const dir = copyExample('mkdocs');
  copyKit(path.join(dir, 'docs'));
  const site = path.join(tmp, 'mkdocs-site');
  run('mkdocs', ['build', '--quiet', '--strict', '--site-dir', site], { cwd: dir });
  const html = fs.readFileSync(path.join(site, 'index.html'), 'utf8');
  assert.match(html, /<script src="attention-lab\.js"[^>]*><\/script>/);
  assert.match(html, /<attention-heatmap tokens="the cat sat on the mat"><\/attention-heatmap>/);
  assert.match(html, /<attention-heatmap tokens="a b c">\s*<script type="application\/json">[^<]*<\/script>\s*<\/attention-heatmap>/, 'the JSON stays inside the element');
  await checkServedSite(site, 'index.html', 'mkdocs', path.join(dir, 'docs', 'index.md'));
});

test('Jupyter: a notebook whose output cell holds the element, exported by nbconvert, shows a working heatmap', async (t) => {
  if (!which('jupyter-nbconvert')) return t.skip('jupyter-nbconvert is not installed: apt-get install jupyter-nbconvert (node scripts/setup.js --recipes)');
  const dir = copyExample('jupyter');
  const out = path.join(tmp, 'jupyter-html');
  run('jupyter-nbconvert', ['--to', 'html', '--TemplateExporter.extra_template_basedirs=templates', '--template', 'offline',
    '--no-prompt', '--output-dir', out, 'attention.ipynb'], { cwd: dir });
  fs.copyFileSync(path.join(dist, 'attention-lab.js'), path.join(out, 'attention-lab.js'));
  const html = fs.readFileSync(path.join(out, 'attention.html'), 'utf8');
  assert.match(html, /data-mime-type="text\/html">\s*<script src="attention-lab\.js"><\/script>\s*<attention-heatmap tokens="the cat sat on the mat"><\/attention-heatmap>/,
    'nbconvert copies the text/html output as it is (no sanitising by default)');
  assert.doesNotMatch(html, /<script src="(https?:|file:)/, 'the offline template drops require.js and MathJax');
  await checkServedSite(out, 'attention.html', 'jupyter');
});

test('Hugo: hugo builds a Markdown page with the raw element (goldmark unsafe) into a working heatmap', async (t) => {
  if (!which('hugo')) return t.skip('hugo is not installed: apt-get install hugo (node scripts/setup.js --recipes)');
  const dir = copyExample('hugo');
  fs.mkdirSync(path.join(dir, 'static'), { recursive: true });
  copyKit(path.join(dir, 'static'));
  const site = path.join(tmp, 'hugo-site');
  run('hugo', ['--quiet', '--source', dir, '--destination', site]);
  const html = fs.readFileSync(path.join(site, 'index.html'), 'utf8');
  assert.match(html, /<attention-heatmap tokens="the cat sat on the mat"><\/attention-heatmap>/, 'the raw HTML survives Markdown');
  assert.match(html, /<attention-heatmap tokens="a b c">\s*<script type="application\/json">[^<]*<\/script>\s*<\/attention-heatmap>/, 'the JSON stays inside the element');
  await checkServedSite(site, 'index.html', 'hugo', path.join(dir, 'content', '_index.md'));
});

test('LMS iframe: embed.html in a sandboxed cross-origin iframe renders the heatmap and the iframe grows to the reported height', async () => {
  const lms = path.join(tmp, 'lms');
  fs.mkdirSync(lms, { recursive: true });
  const [parentServer, distServer] = await Promise.all([serve(lms), startServer({ root: dist })]);
  try {
    assert.notEqual(new URL(parentServer.url).origin, new URL(distServer.url).origin);
    const snippet = fs.readFileSync(path.join(examples, 'lms-iframe', 'parent.html'), 'utf8');
    assert.match(snippet, /src="embed\.html\?/);
    fs.writeFileSync(path.join(lms, 'parent.html'), snippet.replace('src="embed.html?', `src="${distServer.url}embed.html?`));

    const { page, problems, close } = await watchedPage(browser);
    const heights = [];
    await page.exposeFunction('recordHeight', (h) => heights.push(h));
    await page.addInitScript(() => window.addEventListener('message', (e) => {
      if (e.data && e.data.type === 'attention-lab:height') window.recordHeight(e.data.height);
    }));
    await page.goto(`${parentServer.url}parent.html`);
    const iframe = page.locator('#attention-frame');
    assert.equal(await iframe.getAttribute('sandbox'), 'allow-scripts');
    const frame = await (await iframe.elementHandle()).contentFrame();
    assert.equal(new URL(frame.url()).origin, new URL(distServer.url).origin);
    assert.equal(await waitForWidgets(frame), 1);
    assert.equal(await frame.evaluate(() => window.origin), 'null', 'the sandbox gives the embed an opaque origin');
    await checkHeatmapReacts(frame);

    // The iframe takes the height the embed reports, which is its whole content: no inner scrollbar.
    const content = () => frame.evaluate(() => Math.ceil(document.getElementById('embed').getBoundingClientRect().height));
    const expected = await content();
    assert.ok(expected > 300, `the heatmap is taller (${expected} px) than the iframe's first 300 px`);
    await page.waitForFunction((h) => document.getElementById('attention-frame').clientHeight === h, expected);
    assert.equal(heights[heights.length - 1], expected, 'the last report is the content height');
    assert.equal(await frame.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight), true, 'nothing to scroll inside the iframe');

    // The reader's size: a narrow column re-lays the widget out, and the embed reports again.
    await page.setViewportSize({ width: 390, height: 800 });
    await frame.waitForFunction(() => Math.abs(window.innerWidth - 390) < 40);
    const narrow = await content();
    assert.ok(narrow > expected, `the controls wrap in a narrow column: ${narrow} px, was ${expected} px`);
    await page.waitForFunction((h) => document.getElementById('attention-frame').clientHeight === h, narrow);
    await page.screenshot({ path: path.join(shots, 'recipe-lms-iframe-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForFunction((h) => document.getElementById('attention-frame').clientHeight === h, expected);
    await page.screenshot({ path: path.join(shots, 'recipe-lms-iframe-1280.png'), fullPage: true });

    const outside = problems.filter((p) => !p.startsWith(`request outside the page's origin: ${distServer.url}`));
    assert.deepEqual(outside, []);
    await close();
  } finally {
    await Promise.all([parentServer.close(), distServer.close()]);
  }
});

/**
 * Serves the built dist/ as an author's host would for the LMS recipe: the files beside
 * embed.html, the JSON file of attention among them, sent with Access-Control-Allow-Origin: *
 * (a sandboxed frame's requests come from an opaque origin).
 */
function serveEmbedHost() {
  const http = require('http');
  const files = { 'gpt2-quick-brown-fox.json': path.join(root, 'web', 'site', 'data', 'gpt2-quick-brown-fox.json') };
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(1));
    const file = files[name] || (/^[\w.-]+$/.test(name) ? path.join(dist, name) : null);
    if (!file || !fs.existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream', ...(file.endsWith('.json') ? { 'access-control-allow-origin': '*' } : {}) });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((done) => server.close(done)),
  })));
}

test('LMS iframe: <model-attention> in both modes, the shipped model on the learner\'s text and attention from a file or pasted into the LMS page', async () => {
  const lms = path.join(tmp, 'lms-model');
  fs.mkdirSync(lms, { recursive: true });
  const [parentServer, host] = await Promise.all([serve(lms), serveEmbedHost()]);
  try {
    const snippet = fs.readFileSync(path.join(examples, 'lms-iframe', 'model.html'), 'utf8');
    assert.equal(snippet.match(/src="embed\.html\?/g).length, 3);
    fs.writeFileSync(path.join(lms, 'model.html'), snippet.replace(/src="embed\.html\?/g, `src="${host.url}embed.html?`));
    const { page, problems, close } = await watchedPage(browser);
    // Three frames, each with the kit (and one with the model): a loaded machine takes a while.
    await page.goto(`${parentServer.url}model.html`, { waitUntil: 'domcontentloaded', timeout: 180000 });
    const frame = async (id) => (await page.locator(`#${id}`).elementHandle()).contentFrame();

    // The shipped model: embed.html added its script (under its own Trusted Types policy) before the widget.
    const model = await frame('model-frame');
    assert.equal(await waitForWidgets(model, { timeout: 180000 }), 1);
    const guesses = await model.$eval('model-attention', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-model-guesses li'), (li) => li.textContent));
    const expected = lab.loadModel().predict('a part of the body of a person. a part of the body of a').next;
    assert.equal(guesses.length, expected.length);
    assert.ok(guesses[0].startsWith(expected[0].token.replace('\n', '\u21b5')) || guesses[0].includes(expected[0].token.trim()), `${guesses[0]} / ${expected[0].token}`);

    // A file beside embed.html, read by src through the frame's own connect-src 'self'.
    const file = await frame('file-frame');
    assert.equal(await waitForWidgets(file, { timeout: 180000 }), 1);
    assert.deepEqual(await file.$eval('model-attention', (el) => [el.shadowRoot.querySelectorAll('.al-thumb').length, el.shadowRoot.querySelector('.al-open-title').textContent]),
      [144, 'layer 4, head 11']);

    // Attention pasted into the LMS page, handed over by postMessage once the frame loaded.
    const pasted = await frame('pasted-frame');
    await pasted.waitForFunction(() => document.querySelector('model-attention').shadowRoot.querySelectorAll('.al-thumb').length === 2, null, { timeout: 180000 });
    assert.equal(await pasted.$eval('model-attention', (el) => el.state.view), 'summary');
    assert.equal(await pasted.$eval('model-attention', (el) => el.shadowRoot.querySelector('.al-model-meta').textContent), 'model: a hand-made example');
    for (const f of [model, file, pasted]) assert.equal(await f.evaluate(() => window.origin), 'null', 'each frame sandboxed');
    await page.screenshot({ path: path.join(shots, 'recipe-lms-model-1280.png'), fullPage: true });
    const outside = problems.filter((p) => !p.startsWith(`request outside the page's origin: ${host.url}`));
    assert.deepEqual(outside, []);
    await close();
  } finally {
    await Promise.all([parentServer.close(), host.close()]);
  }
});

test('embed.html shows a plain message for an unknown widget or attribute, and URL values stay text', async () => {
  const server = await startServer({ root: dist });
  try {
    const message = async (query) => {
      const { page, problems, close } = await watchedPage(browser);
      await page.goto(`${server.url}embed.html${query}`);
      const text = await page.locator('#embed .embed-message').textContent();
      assert.equal(await page.locator('#embed > *').count(), 1);
      assert.deepEqual(problems, []);
      await close();
      return text;
    };
    assert.match(await message('?widget=attention-nope'), /^embed\.html: there is no widget called "attention-nope"; expected one of attention-stepper, /);
    assert.match(await message('?widget=attention-heatmap&onload=alert(1)'), /^embed\.html: <attention-heatmap> has no attribute "onload"; expected one of tokens, query-tokens, causal/);
    assert.match(await message(''), /^embed\.html: the address needs exactly one \?widget=<name>/);

    const { page, problems, close } = await watchedPage(browser);
    const hostile = '<img src=x onerror="window.pwned=1"> b';
    await page.goto(`${server.url}embed.html?widget=attention-heatmap&tokens=${encodeURIComponent(hostile)}`);
    await waitForWidgets(page);
    assert.equal(await page.evaluate(() => document.querySelector('attention-heatmap').getAttribute('tokens')), hostile);
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.equal(await page.locator('img').count(), 0);
    const headers = await page.locator('attention-heatmap [role="columnheader"]').allTextContents();
    assert.deepEqual(headers, ['query \u2193', '<img', 'src=x', 'onerror="window.pwned=1">', 'b'], 'the axis title, then the tokens as text');
    assert.deepEqual(problems, []);

    // The page ran under its own policy, which is really in force: an inline style is refused,
    // and a string-to-markup sink needs Trusted Types.
    const refused = await page.evaluate(() => new Promise((done) => {
      const seen = new Set();
      let sink = 'allowed';
      document.addEventListener('securitypolicyviolation', (e) => {
        seen.add(e.effectiveDirective);
        if (seen.size === 2) done({ seen: [...seen].sort(), sink });
      });
      try { document.createElement('div').innerHTML = '<b>x</b>'; } catch (err) { sink = err.name; }
      document.body.setAttribute('style', 'color: red');
    }));
    assert.deepEqual(refused, { seen: ['require-trusted-types-for', 'style-src-attr'], sink: 'TypeError' });
    await close();
  } finally {
    await server.close();
  }
});

/** The object bound to the second heatmap's `:data` in a VitePress Markdown page (written as JSON). */
const vueData = (file) => JSON.parse(fs.readFileSync(file, 'utf8').match(/:data(?:\.prop)?='([^']*)'/)[1]);

/** A port nothing listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = require('net').createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** VitePress's own appearance switch (the one shown at this width), clicked as a reader would; the widgets follow the page. */
async function switchVitePressDark(page) {
  await page.getByRole('switch', { name: 'Switch to dark theme' }).filter({ visible: true }).click();
  await page.waitForFunction(() => document.documentElement.classList.contains('dark'));
  await page.waitForFunction(() => Array.from(document.querySelectorAll('attention-heatmap'))
    .every((el) => getComputedStyle(el.shadowRoot.querySelector('.al-frame')).backgroundColor !== 'rgb(255, 255, 255)'), null, { timeout: 3000 });
}

const VITEPRESS_SKIP = 'VitePress is not installed: node scripts/setup.js --recipes runs npm ci in examples/vitepress';

test("VitePress: vitepress build makes a site whose Markdown page imports 'attention-lab/elements'; the heatmaps work and follow the dark switch", async (t) => {
  if (!recipeInstalled('vitepress', 'vitepress')) return t.skip(VITEPRESS_SKIP);
  const dir = path.join(examples, 'vitepress');
  const out = path.join(tmp, 'vitepress-site');
  // bash's `times` reports the CPU time of the build (its children): the wall time on a shared
  // machine measures the machine.
  const r = run('bash', ['-c', '"$@"; status=$?; times >&2; exit $status', 'build', process.execPath,
    path.join(dir, 'node_modules', 'vitepress', 'bin', 'vitepress.js'), 'build', 'docs', '--outDir', out], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  const [user, sys] = r.stderr.trim().split('\n').pop().split(/\s+/).map((t) => {
    const [, m, s] = /^(\d+)m([\d.]+)s$/.exec(t);
    return 60 * Number(m) + Number(s);
  });
  assert.ok(user + sys < 40, `the recipe builds in well under a minute of CPU (${(user + sys).toFixed(1)} s)`);
  assert.doesNotMatch(r.stdout + r.stderr, /externalized for browser compatibility|node:/, 'the elements module needs no node built-in');
  const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  assert.match(html, /<attention-heatmap tokens="the cat sat on the mat"><\/attention-heatmap>/, 'the server render keeps the element for the browser');
  const server = await serve(out);
  try {
    const { page, problems, close } = await open(`${server.url}index.html`);
    assert.equal(await waitForWidgets(page), 2);
    await checkHeatmapReacts(page);
    await checkJsonHeatmap(page, path.join(dir, 'docs', 'index.md'), vueData);
    await screenshots(page, 'vitepress');
    await page.setViewportSize({ width: 1280, height: 800 });
    await switchVitePressDark(page);
    await screenshots(page, 'vitepress-dark');
    assert.deepEqual(problems, []);
    await close();
    // The model page: 'attention-lab/model' imported before the elements, so <model-attention model> reads.
    const m = await open(`${server.url}model.html`);
    const next = await m.page.$eval('model-attention', (el) => el.shadowRoot.querySelectorAll('.al-model-guesses li').length);
    assert.equal(next, 5, 'the model\'s five likeliest next tokens');
    assert.equal(await m.page.$eval('model-attention', (el) => el.shadowRoot.querySelectorAll('.al-thumb').length), lab.loadModel().attention('a').attentions.length * lab.loadModel().attention('a').attentions[0].length);
    await screenshots(m.page, 'vitepress-model');
    assert.deepEqual(m.problems, []);
    await m.close();
  } finally {
    await server.close();
  }
});

test("VitePress: the dev server serves the same page, and the heatmap works from Vite's module graph", async (t) => {
  if (!recipeInstalled('vitepress', 'vitepress')) return t.skip(VITEPRESS_SKIP);
  const dir = path.join(examples, 'vitepress');
  const port = await freePort();
  const dev = require('child_process').spawn(process.execPath, [path.join(dir, 'node_modules', 'vitepress', 'bin', 'vitepress.js'), 'dev', 'docs',
    '--host', '127.0.0.1', '--port', String(port), '--strictPort'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listening = new Promise((resolve, reject) => {
    const read = (chunk) => {
      output += chunk;
      if (/Local:\s+http/.test(output)) resolve();
    };
    dev.stdout.on('data', read);
    dev.stderr.on('data', read);
    dev.on('exit', (code) => reject(new Error(`vitepress dev exited (${code}):\n${output}`)));
  });
  try {
    await listening;
    const w = await watchedPage(browser);
    await w.page.goto(`http://127.0.0.1:${port}/`);
    assert.equal(await waitForWidgets(w.page, { timeout: 60000 }), 2);
    await checkHeatmapReacts(w.page);
    await checkJsonHeatmap(w.page, path.join(dir, 'docs', 'index.md'), vueData);
    assert.deepEqual(w.problems, []);
    await w.close();
  } finally {
    const exited = new Promise((resolve) => dev.once('exit', resolve));
    dev.kill('SIGTERM');
    await exited;
  }
  assert.doesNotMatch(output, /externalized for browser compatibility|\[vite\] error/i, output);
});

/** Where the widget's frame ends against its slide, and whether its last part can be scrolled into the frame. */
function slideFit(page, selector) {
  return page.$eval(selector, (el) => {
    const frame = el.shadowRoot.querySelector('.al-frame');
    const slide = el.closest('section').getBoundingClientRect();
    const f = frame.getBoundingClientRect();
    return { bottom: f.bottom, slideBottom: slide.bottom, viewport: innerHeight, scrollable: frame.scrollHeight - frame.clientHeight };
  });
}

/** Scrolls the widget's frame with the mouse wheel, as a reader would, until its last child is in view. */
async function scrollToEnd(page, selector) {
  await page.locator(selector).hover();
  await page.mouse.wheel(0, 3000);
  await page.waitForFunction((sel) => {
    const frame = document.querySelector(sel).shadowRoot.querySelector('.al-frame');
    const last = frame.lastElementChild.getBoundingClientRect();
    return last.bottom <= frame.getBoundingClientRect().bottom + 1;
  }, selector, { timeout: 3000 });
}

/** Waits until the deck has finished moving to the slide that holds `selector`. */
async function onSlide(page, selector) {
  await page.waitForFunction((sel) => document.querySelector(`section.present ${sel}`)
    && document.querySelector(`section.present ${sel}`).status === 'ready'
    && document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running'), selector);
}

/** Screenshots of the deck as the reader sees it (a deck fills the window: no full-page shot). */
async function deckShot(page, name) {
  await page.screenshot({ path: path.join(shots, `recipe-reveal-${name}.png`) });
}

test('reveal.js: widgets on slides; a stepper grown by the reader and eight heads at 856 px stay inside their slide and scroll there', async (t) => {
  if (!recipeInstalled('reveal', 'reveal.js')) return t.skip('reveal.js is not installed: node scripts/setup.js --recipes runs npm ci in examples/reveal');
  const dir = copyExample('reveal');
  copyKit(dir);
  fs.copyFileSync(path.join(root, 'web', 'site', 'data', 'gpt2-quick-brown-fox.json'), path.join(dir, 'gpt2-quick-brown-fox.json'));
  const server = await serve(dir);
  try {
    const { page, problems, close } = await open(`${server.url}index.html`);
    assert.equal(await waitForWidgets(page), 5);
    await checkHeatmapReacts(page);
    await deckShot(page, 'heatmap-1280');
    await page.setViewportSize({ width: 390, height: 800 });
    await onSlide(page, 'attention-heatmap');
    await deckShot(page, 'heatmap-390');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The next slide, by the deck's own arrow; then Next twice in the stepper.
    await page.locator('.reveal .controls .navigate-right').click();
    await onSlide(page, 'attention-stepper');
    const next = page.locator('attention-stepper button.al-primary');
    for (let i = 0; i < 2; i++) await next.click();
    await page.waitForFunction(() => document.querySelector('attention-stepper').state.stepIndex === 2);
    await page.waitForTimeout(300);
    let fit = await slideFit(page, 'attention-stepper');
    assert.ok(fit.scrollable > 0, `the grown stepper is taller than its slide's room (${fit.scrollable} px more)`);
    assert.ok(fit.bottom <= fit.slideBottom + 1 && fit.bottom >= fit.slideBottom - 2, `it ends at its slide's bottom, using the room left there (${fit.bottom}, slide ${fit.slideBottom})`);
    await scrollToEnd(page, 'attention-stepper');
    await deckShot(page, 'stepper-1280');

    // The heads' slide in a window 856 px wide, with eight heads.
    await page.setViewportSize({ width: 856, height: 800 });
    await page.locator('.reveal .controls .navigate-right').click();
    await onSlide(page, 'multihead-view');
    await page.locator('multihead-view select').selectOption('8');
    await page.waitForFunction(() => document.querySelector('multihead-view').state.heads === 8);
    await page.waitForTimeout(300);
    fit = await slideFit(page, 'multihead-view');
    assert.ok(fit.bottom <= fit.slideBottom + 1 && fit.bottom <= fit.viewport, `eight heads end on their slide (${fit.bottom} <= ${fit.slideBottom})`);
    if (fit.scrollable > 0) await scrollToEnd(page, 'multihead-view');
    await deckShot(page, 'heads-856');

    // The trainer's slide: one step in a worker started from the deck's own copy of the script.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('.reveal .controls .navigate-right').click();
    await onSlide(page, 'attention-trainer');
    await page.locator('section.present attention-trainer button:has-text("One step")').click();
    await page.waitForFunction(() => document.querySelector('attention-trainer').state.step === 1, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.querySelector('attention-trainer').state.runner), 'worker');
    fit = await slideFit(page, 'attention-trainer');
    assert.ok(fit.bottom <= fit.slideBottom + 1, `the trainer ends on its slide (${fit.bottom} <= ${fit.slideBottom})`);
    await deckShot(page, 'trainer-1280');

    // GPT-2's model view from a file beside the deck, layer 4 head 11 open.
    await page.locator('.reveal .controls .navigate-right').click();
    await onSlide(page, 'model-attention');
    assert.deepEqual(await page.$eval('model-attention', (el) => [el.shadowRoot.querySelectorAll('.al-thumb').length, el.shadowRoot.querySelector('.al-open-title').textContent]),
      [144, 'layer 4, head 11']);
    fit = await slideFit(page, 'model-attention');
    assert.ok(fit.bottom <= fit.slideBottom + 1, `the model view ends on its slide (${fit.bottom} <= ${fit.slideBottom})`);
    await deckShot(page, 'model-1280');
    assert.deepEqual(problems, []);
    await close();

    // A deck without the recipe's slide rule: the widget is still kept in the window, scrolling.
    const deck = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
    const rule = '.reveal .slides > section { height: 100%; overflow: hidden; }';
    assert.ok(deck.includes(rule));
    fs.writeFileSync(path.join(dir, 'plain.html'), deck.replace(rule, ''));
    const plain = await open(`${server.url}plain.html`);
    await plain.page.locator('.reveal .controls .navigate-right').click();
    await onSlide(plain.page, 'attention-stepper');
    for (let i = 0; i < 2; i++) await plain.page.locator('attention-stepper button.al-primary').click();
    await plain.page.waitForFunction(() => document.querySelector('attention-stepper').state.stepIndex === 2);
    await plain.page.waitForTimeout(300);
    fit = await slideFit(plain.page, 'attention-stepper');
    assert.ok(fit.scrollable > 0 && fit.bottom <= fit.viewport + 1, `without the rule it ends in the window and scrolls (${fit.bottom} <= ${fit.viewport})`);
    await scrollToEnd(plain.page, 'attention-stepper');
    assert.deepEqual(plain.problems, []);
    await plain.close();
  } finally {
    await server.close();
  }
});
