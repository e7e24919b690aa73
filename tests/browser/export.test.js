'use strict';
// Export and print on the lesson pages, as a reader does it: the Export menu with the
// keyboard, the downloaded files opened and checked against the engine, and print media.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { launch, watchedPage, openSettled, settled, sendPolicy, CSP } = require('./browser.js');
const { parseCSV } = require('../node/csv-reader.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const ex = require('../../web/src/ui/export.js');
const colors = require('../../web/src/ui/colors.js');

const root = path.resolve(__dirname, '..', '..');
const shots = path.join(root, 'test-results', 'screenshots');
const saved = path.join(root, 'test-results', 'exports');   // the downloaded files, to look at

let browser, server, lab;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  lab = await loadAttentionLab();
  fs.mkdirSync(shots, { recursive: true });
  fs.mkdirSync(saved, { recursive: true });
});
test.after(async () => {
  await server.close();
  await browser.close();
});

const open = (page, opts) => openSettled(browser, `${server.url}dist/${page}`, opts);

/** Lesson 1's row of flies, kept back in the heatmap until the stepper's question is committed: asked for there. */
async function commitFlies(p) {
  await p.click('#lab button[aria-pressed] >> text="flies"');
  for (let k = 0; k < 2; k++) {
    await p.click('#lab button:has-text("Next")');
    await p.click('#lab button:has-text("Show me without guessing")');
  }
}

/** Text of the focused element, through open shadow roots. */
const focused = (p) => p.evaluate(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a ? a.textContent : null;
});

/** Opens the menu from its button with the keyboard, walks to `item` with ArrowDown, saves. */
async function exportWithKeys(p, button, item) {
  await button.focus();
  await p.keyboard.press('Enter');
  const order = ['PNG image', 'SVG image', 'CSV numbers', 'JSON data', 'Copy numbers'];
  for (let k = 0; k < order.indexOf(item); k++) await p.keyboard.press('ArrowDown');
  assert.equal(await focused(p), item);
  const [download] = await Promise.all([p.waitForEvent('download'), p.keyboard.press('Enter')]);
  const name = download.suggestedFilename();
  await download.saveAs(path.join(saved, name));
  return { name, bytes: fs.readFileSync(path.join(saved, name)) };
}

/** Every fill colour ("r g b rg", 0-1) in the PDF's compressed content streams. */
function pdfFills(pdf) {
  const text = pdf.toString('latin1');
  const fills = [];
  for (const m of text.matchAll(/stream\r?\n/g)) {
    const start = m.index + m[0].length;
    let content;
    try {
      content = zlib.inflateSync(pdf.subarray(start, text.indexOf('endstream', start))).toString('latin1');
    } catch {
      continue;   // fonts and images that are not deflated content
    }
    for (const f of content.matchAll(/([\d.]+) ([\d.]+) ([\d.]+) rg\b/g)) fills.push([1, 2, 3].map((k) => Number(f[k])));
  }
  return fills;
}

/** Width and height from a PNG's signature and IHDR chunk. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

test('the heatmap\'s Export menu works from the keyboard: arrows move, Escape closes and returns focus', async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  const button = p.locator('#matrix .al-export-button');
  assert.equal(await button.getAttribute('aria-haspopup'), 'menu');
  assert.equal(await button.getAttribute('aria-expanded'), 'false');
  await button.focus();
  await p.keyboard.press('Enter');
  assert.equal(await button.getAttribute('aria-expanded'), 'true');
  assert.equal(await focused(p), 'PNG image');
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('ArrowDown');
  assert.equal(await focused(p), 'CSV numbers');
  await p.keyboard.press('End');
  assert.equal(await focused(p), 'Copy numbers');
  await p.keyboard.press('ArrowDown');
  assert.equal(await focused(p), 'PNG image', 'the arrows wrap around');
  await p.keyboard.press('ArrowUp');
  assert.equal(await focused(p), 'Copy numbers');
  await p.screenshot({ path: path.join(shots, 'export-menu-open.png') });
  await p.keyboard.press('Escape');
  assert.equal(await button.getAttribute('aria-expanded'), 'false');
  assert.equal(await p.locator('#matrix .al-export-list').isVisible(), false);
  assert.equal(await focused(p), 'Export');
  await p.keyboard.press('ArrowDown');
  assert.equal(await focused(p), 'PNG image', 'ArrowDown on the button opens the menu too');
  await p.keyboard.press('Tab');
  assert.equal(await button.getAttribute('aria-expanded'), 'false', 'Tab leaves and closes the menu');
  assert.deepEqual(problems, []);
  await close();
});

test('heatmap exports: CSV and JSON numbers equal the engine\'s, the SVG parses with its labels, the PNG decodes with the scale\'s colours', async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  await p.check('#matrix input[type="checkbox"] >> nth=0');   // causal mask on
  const button = p.locator('#matrix .al-export-button');
  // Lesson 1's row of like is an exercise: an export leaves it out until the reader asks for it.
  const waiting = JSON.parse((await exportWithKeys(p, button, 'JSON data')).bytes.toString('utf8'));
  assert.deepEqual(waiting.values[2], [null, null, null, null, null]);
  assert.deepEqual(waiting.values[1], [null, null, null, null, null], 'and the row of flies, the stepper\'s exercise');
  await p.click('#matrix button:has-text("Show the row")');
  await commitFlies(p);

  const json = await exportWithKeys(p, button, 'JSON data');
  assert.equal(json.name, 'attention-weights.json');
  const data = JSON.parse(json.bytes.toString('utf8'));
  assert.equal(data.settings.causal, true);
  const { Q, K, V, tokens } = lab.examples().timeFlies;
  const r = lab.attention(Q, K, V, { causal: true, scaling: data.settings.scaling, temperature: data.settings.temperature });
  assert.deepEqual(data.values.flat(), Array.from(r.weights.data));
  assert.deepEqual(data.rowLabels, tokens);
  assert.deepEqual(data.masked[0], [false, true, true, true, true]);
  assert.match(data.caption, /causal mask on/);

  const csv = await exportWithKeys(p, button, 'CSV numbers');
  assert.equal(csv.name, 'attention-weights.csv');
  const text = csv.bytes.toString('utf8');
  assert.equal(text[0], '\ufeff', 'a byte-order mark for spreadsheets');
  const rows = parseCSV(text.slice(1));
  assert.deepEqual(rows[0], ['query \\ key', ...tokens, 'caption']);
  const numbers = rows.slice(1).flatMap((row) => row.slice(1, -1).map((s) => Math.fround(Number(s))));
  assert.deepEqual(numbers, Array.from(r.weights.data));

  const svg = await exportWithKeys(p, button, 'SVG image');
  assert.equal(svg.name, 'attention-weights.svg');
  const parsed = await p.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    return { error: doc.getElementsByTagName('parsererror').length, root: doc.documentElement.localName,
      texts: Array.from(doc.querySelectorAll('text'), (t) => t.textContent), fills: Array.from(doc.querySelectorAll('rect'), (t) => t.getAttribute('fill')) };
  }, svg.bytes.toString('utf8'));
  assert.equal(parsed.error, 0);
  assert.equal(parsed.root, 'svg');
  for (const t of ['query \u2193', 'key \u2192', ...tokens, 'masked (\u2212\u221e before softmax)']) assert.ok(parsed.texts.includes(t), `SVG shows "${t}"`);
  assert.ok(parsed.fills.includes(colors.color(r.weights.data[5])), 'cells use the widget colour scale');

  const png = await exportWithKeys(p, button, 'PNG image');
  assert.equal(png.name, 'attention-weights.png');
  const l = ex.layout({ kind: 'heatmap', ...data, showNumbers: true });
  assert.deepEqual(pngSize(png.bytes), [Math.ceil(l.width * 2), Math.ceil(l.height * 2)]);
  // Decode in the page and read the pixel at the centre of cell (1, 0).
  const cell = l.items.filter((it) => it.t === 'rect')[1 + 5];
  const pixel = await p.evaluate(async ({ b64, x, y }) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const c = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = c.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    return Array.from(ctx.getImageData(x, y, 1, 1).data);
  }, { b64: png.bytes.toString('base64'), x: Math.round((cell.x + 4) * 2), y: Math.round((cell.y + 4) * 2) });
  assert.deepEqual(pixel, [...colors.rgb(r.weights.data[5]), 255]);
  assert.match(await p.locator('#matrix .al-export [role="status"]').textContent(), /Saved attention-weights\.png/);
  assert.deepEqual(problems, []);
  await close();
});

test('Copy numbers puts tab-separated numbers on the clipboard, or shows them selected when the clipboard is blocked', async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  await p.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  await p.click('#matrix button:has-text("Show the row")');   // lesson 1's row of like, kept back until asked for
  await commitFlies(p);
  const button = p.locator('#matrix .al-export-button');
  await button.focus();
  await p.keyboard.press('Enter');
  await p.keyboard.press('End');
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => /Copied/.test(document.querySelector('#matrix').shadowRoot.querySelector('.al-export [role="status"]').textContent));
  const copied = await p.evaluate(() => navigator.clipboard.readText());
  const { Q, K, V } = lab.examples().timeFlies;
  const weights = Array.from(lab.attention(Q, K, V).weights.data);
  const rows = parseCSV(copied, '\t');
  assert.equal(rows[0][1], 'time');
  assert.ok(copied.split('\r\n')[1].includes('\t'));
  assert.deepEqual(rows.slice(1).flatMap((row) => row.slice(1, -1).map((s) => Math.fround(Number(s)))), weights);
  assert.deepEqual(problems, []);
  await close();

  const w = await watchedPage(browser);
  await w.page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
  await w.page.goto(`${server.url}dist/lesson-1.html`);
  await settled(w.page);  // brings each widget near (they start only then) and waits for it
  await w.page.click('#matrix button:has-text("Show the row")');
  await commitFlies(w.page);
  await w.page.locator('#matrix .al-export-button').focus();
  await w.page.keyboard.press('Enter');
  await w.page.keyboard.press('End');
  await w.page.keyboard.press('Enter');
  const area = w.page.locator('#matrix .al-export-fallback textarea');
  await area.waitFor({ state: 'visible' });
  const state = await area.evaluate((el) => ({ value: el.value, readOnly: el.readOnly, start: el.selectionStart, end: el.selectionEnd,
    focused: el.getRootNode().activeElement === el, label: el.labels[0].textContent }));
  assert.equal(state.value, copied.replace(/\r\n/g, '\n'), 'the same text (a textarea keeps line breaks as LF)');
  assert.ok(state.readOnly);
  assert.deepEqual([state.start, state.end], [0, state.value.length], 'the numbers are selected');
  assert.ok(state.focused);
  assert.match(state.label, /Ctrl\+C/);
  await w.page.screenshot({ path: path.join(shots, 'export-copy-fallback.png') });
  await w.page.locator('#matrix .al-export-fallback button').click();
  assert.equal(await area.isVisible(), false);
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('the scaling chart exports its measured numbers, equal to the engine\'s, and an SVG with its legend', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  await p.click('#scaling button.al-skip');
  const button = p.locator('#scaling .al-chart-tools .al-export-button').first();
  const { settings } = JSON.parse((await exportWithKeys(p, button, 'JSON data')).bytes.toString('utf8'));
  assert.deepEqual(settings, { samples: 5000, seed: 2017 });
  const csv = await exportWithKeys(p, button, 'CSV numbers');
  const rows = parseCSV(csv.bytes.toString('utf8').slice(1));
  assert.deepEqual(rows[0], ['d\u2096', 'std = \u221ad\u2096', 'measured std', 'caption']);
  const dks = rows.slice(1).map((row) => Number(row[0]));
  assert.deepEqual(dks, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
  const stats = dks.map((dk) => lab.dotProductStats({ dk, ...settings }));
  assert.deepEqual(rows.slice(1).map((row) => Number(row[2])), stats.map((s) => s.std));
  assert.deepEqual(rows.slice(1).map((row) => Number(row[1])), stats.map((s) => s.expectedStd));
  assert.match(rows[1][3], /seed 2017/);
  const svg = await exportWithKeys(p, button, 'SVG image');
  const texts = await p.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    return doc.getElementsByTagName('parsererror').length ? null : Array.from(doc.querySelectorAll('text'), (t) => t.textContent);
  }, svg.bytes.toString('utf8'));
  assert.ok(texts, 'the SVG parses');
  for (const t of ['\u221ad\u2096', '25', 'std']) assert.ok(texts.includes(t), `SVG shows "${t}"`);
  const png = await exportWithKeys(p, p.locator('#scaling .al-chart-tools .al-export-button').nth(1), 'PNG image');
  assert.equal(png.name, 'saturation-of-one-softmax-row-against-dk.png');
  const [width] = pngSize(png.bytes);
  assert.equal(width, 2 * (480 + 32));
  assert.deepEqual(problems, []);
  await close();
});

test('print keeps heatmap colours and numbers, hides the controls, and lists the answers in an "Answers" section at the end of the page, none beside its question', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  await p.locator('#scaling svg').first().waitFor({ state: 'attached', timeout: 30000 });  // measured in slices after load
  const slots = p.locator('.al-print-answer');
  assert.ok(await slots.count() >= 6);
  // Until the page prints, no answer is in the page at all: every slot is empty and not rendered.
  assert.deepEqual([...new Set(await slots.evaluateAll((els) => els.map((el) => el.textContent)))], ['']);
  assert.equal(await slots.first().evaluate((el) => getComputedStyle(el).display), 'none', 'on screen the slot is not rendered');
  // Numbers off on screen: printing still shows them in the cells.
  await p.uncheck('#causal .al-controls input[type="checkbox"] >> nth=1');
  const cell = p.locator('#causal .al-cell[data-row="1"][data-col="0"]');
  assert.equal(await cell.textContent(), '');
  // What the browser's print dialog (and page.pdf below) does first: beforeprint.
  await p.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await p.emulateMedia({ media: 'print', colorScheme: 'dark' });   // a dark-mode reader still prints light
  const printed = await p.evaluate(() => {
    const all = (sel, root = document) => [...root.querySelectorAll(sel), ...[...root.querySelectorAll('*')].filter((el) => el.shadowRoot).flatMap((el) => all(sel, el.shadowRoot))];
    const q = (host, sel) => document.querySelector(host).shadowRoot.querySelector(sel);
    const cellEl = q('#causal', '.al-cell[data-row="1"][data-col="0"]');
    const vis = (el) => getComputedStyle(el).display !== 'none';
    const section = document.querySelector('section.attention-lab-answers');
    const widgets = Array.from(document.querySelectorAll('attention-heatmap, scaling-experiment, softmax-demo, multihead-view, attention-worked-example'));
    return {
      slots: all('.al-print-answer').filter((el) => el.offsetParent !== null).map((el) => el.textContent),
      section: section && {
        last: section === document.querySelector('main').lastElementChild,
        afterWidgets: widgets.every((w) => w.compareDocumentPosition(section) & Node.DOCUMENT_POSITION_FOLLOWING),
        heading: section.querySelector('h2').textContent,
        items: Array.from(section.querySelectorAll('li'), (li) => Array.from(li.querySelectorAll('p'), (x) => x.textContent)),
        shown: vis(section),
      },
      exports: all('.al-export').length,
      exportShown: all('.al-export').some(vis),
      choiceShown: vis(q('#causal', '.al-predict .al-group')),
      skipShown: vis(q('#scaling', 'button.al-skip')),
      cellBg: getComputedStyle(cellEl).backgroundColor,
      cellNumber: getComputedStyle(cellEl, '::after').content,
      cellValue: Number(cellEl.dataset.value),
      adjust: getComputedStyle(cellEl).printColorAdjust,
      widgetBg: getComputedStyle(q('#causal', '.al-frame')).backgroundColor,
    };
  });
  assert.ok(printed.exports >= 5, 'the page has export menus');
  assert.equal(printed.exportShown, false);
  assert.equal(printed.choiceShown, false);
  assert.equal(printed.skipShown, false);
  assert.equal(printed.adjust, 'exact');
  assert.equal(printed.widgetBg, 'rgb(255, 255, 255)');
  assert.equal(printed.cellBg, colors.color(printed.cellValue));
  assert.equal(printed.cellNumber, `"${printed.cellValue.toFixed(2)}"`);
  // Beside each question, only where its answer is: numbered in page order.
  assert.deepEqual(printed.slots, printed.slots.map((_, i) => `Answer ${i + 1} is in "Answers" at the end of the page.`));
  const { section } = printed;
  assert.ok(section && section.shown && section.last && section.afterWidgets, 'the Answers section ends the page');
  assert.equal(section.heading, 'Answers');
  assert.equal(section.items.length, printed.slots.length, 'one answer per question');
  const answers = section.items.map(([, answer]) => answer);
  const { Q, K, V } = lab.examples().timeFlies;
  const row0 = lab.attention(Q, K, V, { causal: true }).weights.toArray()[0];
  assert.ok(answers.includes(`all weight on itself: the engine gives [${row0.join(', ')}].`), answers.join(' | '));
  const std512 = lab.dotProductStats({ dk: 512, samples: 5000, seed: 2017 }).std;   // the widget's defaults
  assert.ok(answers.some((a) => a.startsWith(`about ${std512.toFixed(2)} measured`)), answers.join(' | '));
  assert.ok(answers.some((a) => /^the same as softmax\(\[0, 1, 2\]\): \[0\.0900, 0\.2447, 0\.6652\]/.test(a)), answers.join(' | '));
  assert.ok(answers.some((a) => /^d\u2096 = 1 /.test(a)), answers.join(' | '));
  assert.ok(section.items.every(([question]) => question.length > 10), 'each answer comes with its question');
  for (const text of printed.slots) for (const a of answers) assert.ok(!text.includes(a), 'no answer beside its question');
  await p.locator('#causal').screenshot({ path: path.join(shots, 'print-heatmap.png') });
  await p.screenshot({ path: path.join(shots, 'print-lesson-2.png'), fullPage: true });
  // "Background graphics" off, as in a browser's print dialog by default: the cells keep their colours.
  const pdf = await p.pdf({ format: 'A4', printBackground: false });
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  const fills = pdfFills(pdf);
  const values = await p.locator('#causal .al-cell').evaluateAll((els) => els.map((el) => Number(el.dataset.value)));
  assert.equal(values.length, 25);
  for (const v of values) {
    const want = colors.rgb(v).map((c) => c / 255);
    assert.ok(fills.some((f) => f.every((x, k) => Math.abs(x - want[k]) < 0.002)), `the PDF fills a cell with ${colors.color(v)}`);
  }
  fs.writeFileSync(path.join(root, 'test-results', 'lesson-2-print.pdf'), pdf);
  // After printing (afterprint, which page.pdf fires too), the page is as it was.
  assert.equal(await p.locator('section.attention-lab-answers').count(), 0);
  assert.deepEqual([...new Set(await slots.evaluateAll((els) => els.map((el) => el.textContent)))], ['']);
  await p.emulateMedia({ media: 'screen' });
  // Lesson 3's shape quiz: each row prints a pointer instead of its input, and the section the 14 shapes with their rules.
  await p.goto(`${server.url}dist/lesson-3.html`);
  await p.waitForFunction(() => document.querySelector('#shapes3').status === 'ready');
  await p.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await p.emulateMedia({ media: 'print' });
  const quiz = await p.locator('#shapes3 .al-group').first().evaluate((g) => Array.from(g.children).filter((el) => getComputedStyle(el).display !== 'none').map((el) => el.textContent));
  assert.deepEqual(quiz, ['Answer 1 is in "Answers" at the end of the page.'], 'a quiz row prints a pointer to its answer instead of its input');
  const items = await p.$$eval('section.attention-lab-answers li', (lis) => lis.map((li) => Array.from(li.querySelectorAll('p'), (x) => x.textContent).join(' ')));
  const trace = lab.traceShapes({ batch: 32, n: 50, dModel: 64, heads: 1, dk: 64, dv: 128 });
  assert.ok(items.length >= trace.steps.length, `${items.length} answers`);
  trace.steps.forEach((step, i) => assert.ok(items[i].includes(`= [${step.shape.join(', ')}]: `), `answer ${i + 1}: ${items[i]}`));
  assert.ok(items.some((x) => x.includes('The shape of "scores" (Q K\u1d40) [batch, n, n] = [32, 50, 50]: Q K\u1d40 keeps the leading axes, sums over the d\u2096')), items.join(' | '));
  await p.evaluate(() => window.dispatchEvent(new Event('afterprint')));
  assert.equal(await p.locator('section.attention-lab-answers').count(), 0);
  assert.deepEqual(problems, []);
  await close();
});

test('under a strict CSP (img-src and style-src \'self\') exports work with no violation, and hostile tokens stay text', async () => {
  const w = await watchedPage(browser);
  const p = w.page;
  await p.addInitScript(() => {
    window.violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.urls = { made: 0, revoked: 0 };
    const [make, revoke] = [URL.createObjectURL, URL.revokeObjectURL];
    URL.createObjectURL = (blob) => { window.urls.made += 1; return make(blob); };
    URL.revokeObjectURL = (url) => { window.urls.revoked += 1; return revoke(url); };
  });
  await p.goto(`${server.url}tests/browser/export-csp.html`);
  await p.waitForFunction(() => document.querySelector('#hostile').status === 'ready', null, { timeout: 20000 });
  const tokens = ['<b>x</b>', 'a,b', 'say "hi"', '=1+1'];
  const button = p.locator('#hostile .al-export-button');
  const png = await exportWithKeys(p, button, 'PNG image');
  assert.ok(pngSize(png.bytes)[0] > 300);
  const svg = await exportWithKeys(p, button, 'SVG image');
  const parsed = await p.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    return { error: doc.getElementsByTagName('parsererror').length, elements: [...new Set(Array.from(doc.querySelectorAll('*'), (e) => e.localName))].sort(),
      texts: Array.from(doc.querySelectorAll('text'), (t) => t.textContent) };
  }, svg.bytes.toString('utf8'));
  assert.equal(parsed.error, 0);
  assert.deepEqual(parsed.elements, ['defs', 'desc', 'linearGradient', 'rect', 'stop', 'svg', 'text', 'title']);
  for (const t of tokens) assert.ok(parsed.texts.includes(t), `the SVG shows ${t} as text`);
  const rows = parseCSV((await exportWithKeys(p, button, 'CSV numbers')).bytes.toString('utf8').slice(1));
  assert.deepEqual(rows[0].slice(1, -1), ['<b>x</b>', 'a,b', 'say "hi"', '\'=1+1']);
  const r = lab.attention([[1, 0], [0, 1], [1, 1], [0, 0]], [[2, 0], [0, 2], [1, 1], [1, 0]], [[1], [2], [3], [4]]);
  assert.deepEqual(rows.slice(1).flatMap((row) => row.slice(1, -1).map((s) => Math.fround(Number(s)))), Array.from(r.weights.data));
  // The engine's own embedded-bytes fetch under connect-src 'none' is issue 6 item 4, not this menu's.
  await p.waitForFunction(() => window.urls.made === 3 && window.urls.revoked === 3, null, { timeout: 5000 });   // every object URL is released
  const violations = (await p.evaluate(() => window.violations)).filter((v) => !v.startsWith('connect-src'));
  assert.deepEqual(violations, []);
  await w.close();
});

for (const [policy, label] of [[null, 'no policy'], [CSP.strict, 'a strict CSP'], [CSP.trustedTypes, 'a strict CSP with Trusted Types']]) {
  test(`under ${label}, the Export menu of a widget inside an overflow: hidden, contain: paint box opens whole: every item can be hit and clicked`, async () => {
    const w = await watchedPage(browser, { width: 1000, height: 700 });
    const p = w.page;
    await p.addInitScript(() => {
      window.violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const url = `${server.url}tests/browser/hosts/clipped.html`;
    if (policy) await sendPolicy(p, url, policy);
    await p.goto(url);
    await p.waitForFunction(() => document.querySelector('#clipped').status === 'ready', null, { timeout: 20000 });
    const button = p.locator('#clipped .al-export-button');
    // The button near the top of the window: the menu opens below it, past the box's bottom edge.
    await button.evaluate((b) => b.scrollIntoView({ block: 'start' }));
    await button.click();
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    // Each item's centre, and what the browser finds there (inside the widget's shadow root).
    const hits = () => p.evaluate(() => {
      const el = document.querySelector('#clipped');
      const box = document.querySelector('.clip').getBoundingClientRect();
      return Array.from(el.shadowRoot.querySelectorAll('[role="menuitem"]'), (item) => {
        const r = item.getBoundingClientRect();
        const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
        return { text: item.textContent, x, y, hit: el.shadowRoot.elementFromPoint(x, y) === item, outside: y > box.bottom || y < box.top };
      });
    });
    let items = await hits();
    assert.deepEqual(items.map((i) => i.text), ['PNG image', 'SVG image', 'CSV numbers', 'JSON data', 'Copy numbers']);
    assert.deepEqual(items.filter((i) => !i.hit).map((i) => i.text), [], 'no item is clipped or covered');
    assert.ok(items.some((i) => i.outside), 'the menu reaches past the clipping box (so the test can fail)');
    // The page scrolls while the menu is open: the menu follows its button.
    await p.mouse.wheel(0, 60);
    await p.waitForTimeout(100);
    const buttonBox = await button.boundingBox();
    items = await hits();
    assert.deepEqual(items.filter((i) => !i.hit).map((i) => i.text), [], 'every item is still hit after scrolling');
    assert.ok(Math.abs(items[0].y - (buttonBox.y + buttonBox.height)) < 60, 'the menu stays next to its button');
    // A person clicks "CSV numbers" with the mouse: the file is saved and the menu closes.
    const csv = items.find((i) => i.text === 'CSV numbers');
    const [download] = await Promise.all([p.waitForEvent('download'), p.mouse.click(csv.x, csv.y)]);
    assert.equal(download.suggestedFilename(), 'attention-weights.csv');
    const rows = parseCSV(fs.readFileSync(await download.path(), 'utf8').slice(1));
    const { Q, K, V } = lab.examples().timeFlies;
    assert.deepEqual(rows.slice(1).flatMap((row) => row.slice(1, -1).map((s) => Math.fround(Number(s)))), Array.from(lab.attention(Q, K, V).weights.data));
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.equal(await p.locator('#clipped .al-export-list').isVisible(), false);
    // Opened again and dismissed by a click elsewhere on the page.
    await button.click();
    assert.equal(await p.locator('#clipped .al-export-list').isVisible(), true);
    await p.mouse.click(5, 5);
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.equal(await p.locator('#clipped .al-export-list').isVisible(), false);
    assert.deepEqual(await p.evaluate(() => window.violations), []);
    assert.deepEqual(w.problems, []);
    await w.close();
  });
}
