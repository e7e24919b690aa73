'use strict';
// Keyboard-only runs of every prompt and widget beyond the stepper and the worked example
// (those are in teaching.test.js): Tab, Shift+Tab, Enter, Space, arrows and typing, no
// mouse. After every key, focus must still be inside the widget, never on <body>; each
// prompt is answered wrongly first (the why is shown) and then rightly.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { launch, openSettled, textSlips, drawnText } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { fixed, num } = require('../../web/src/ui/format.js');

const root = path.resolve(__dirname, '..', '..');
let browser, server, lab;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  lab = await loadAttentionLab();
});
test.after(async () => {
  await server.close();
  await browser.close();
});

const open = (page) => openSettled(browser, `${server.url}dist/${page}`);

/** What has focus: '<id>|<tag>|<role or type>|<text or label>' inside a widget, or the tag outside one. */
const focused = (p) => p.evaluate(() => {
  const host = document.activeElement;
  if (!host || !host.shadowRoot) return host ? host.tagName : 'NONE';
  const el = host.shadowRoot.activeElement;
  if (!el) return `${host.id}|HOST`;
  const text = el.labels && el.labels.length ? el.labels[0].textContent : el.textContent;
  return `${host.id}|${el.tagName}|${el.getAttribute('role') || el.type || ''}|${(text || '').trim().slice(0, 40)}`;
});

/** A keyboard driver for one widget that checks, after every key, that focus stayed in it. */
function keys(p, id) {
  const where = async (key) => {
    const f = await focused(p);
    assert.ok(f.startsWith(`${id}|`) && !f.endsWith('|HOST'), `after ${key}, focus is on ${f}, not inside #${id}`);
    const slips = await textSlips(p);
    assert.deepEqual(slips, [], `after ${key}, a widget shows a missing value as text`);
    return f;
  };
  return {
    async press(key, times = 1) {
      for (let i = 0; i < times; i++) {
        await p.keyboard.press(key);
        await where(key);
      }
    },
    async type(text) {
      await p.keyboard.type(text);
      return where(`typing ${text}`);
    },
    /** Tab (or Shift+Tab) until match(focus description) holds; at most `limit` presses. */
    async tabTo(match, { back = false, limit = 25 } = {}) {
      for (let i = 0; i < limit; i++) {
        const f = await focused(p);
        if (f.startsWith(`${id}|`) && match(f)) return f;
        await p.keyboard.press(back ? 'Shift+Tab' : 'Tab');
        if (i > 0 || f.startsWith(`${id}|`)) await where(back ? 'Shift+Tab' : 'Tab');
      }
      throw new Error(`no element matching in #${id} within ${limit} presses; focus on ${await focused(p)}`);
    },
    /** Focus the element just before the widget, so the run starts with a real Tab into it. */
    async enter() {
      await p.evaluate((wid) => {
        const el = document.getElementById(wid);
        const stop = document.createElement('button');
        stop.textContent = 'before';
        stop.id = `${wid}-before`;
        el.before(stop);
        stop.focus();
      }, id);
      await p.keyboard.press('Tab');
      return where('Tab into the widget');
    },
  };
}

const textIn = drawnText;
const isButton = (label) => (f) => f.includes('|BUTTON|') && f.endsWith(`|${label}`);
/** A button whose label is longer than the 40 characters focused() reports. */
const isLongButton = (label) => (f) => f.includes('|BUTTON|') && f.endsWith(`|${label.slice(0, 40)}`);

test('keyboard only: the causal-mask prompt (a wrong pick gets a hint, then a right one; tick the mask) and the row-0 question, wrong twice then right', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  const k = keys(p, 'causal');
  await k.enter();
  const grid = await k.tabTo((f) => f.includes('|gridcell|'));
  assert.match(grid, /\|DIV\|gridcell\|/);
  // Wrong: "like" looking back at "flies" is not masked. A hint, and the mask is still off.
  await k.press('ArrowDown', 2);
  await k.press('ArrowRight');
  await k.press('Enter');
  let text = await textIn(p, '#causal');
  assert.match(text, /Not yet\. "flies" comes at or before "like"\. May a token look at a word it has already read\? Pick another cell\. Try once more\./);
  assert.doesNotMatch(text, /above the diagonal/, 'the hint does not give the rule away');
  assert.equal((await p.$eval('#causal', (el) => el.state)).causal, false);
  // Right: "like" looking ahead at "an".
  await k.press('ArrowRight', 2);
  await k.press('Enter');
  assert.match(await textIn(p, '#causal'), /Right: "like" may not look ahead at "an", so the mask sets that weight to 0\. Tick "causal mask" to see every cell it hides\./);
  const causalBox = (f) => f.includes('|checkbox|causal mask');
  await k.tabTo(causalBox, { back: true });
  await k.press('Space');
  assert.equal((await p.$eval('#causal', (el) => el.state)).causal, true);
  // Row 0: wrong (a hint), wrong again (the answer and why), then right, by Tab and Enter.
  await k.tabTo(isButton('spread evenly'));
  await k.press('Enter');
  text = await textIn(p, '#causal');
  assert.match(text, /Not yet\. Under the mask a token sees only itself and the tokens before it\./);
  assert.doesNotMatch(text, /\[1, 0, 0, 0, 0\]/, 'the first row stays hidden after a first miss');
  await k.tabTo(isButton('it depends on the vectors'));
  await k.press('Enter');
  text = await textIn(p, '#causal');
  assert.match(text, /Not quite: the engine gives \[1, 0, 0, 0, 0\]\. The first token may only see itself, and a softmax over one entry is 1\./);
  await k.tabTo(isButton('all weight on itself: [1, 0, 0, …]'), { back: true });
  await k.press('Enter');
  assert.match(await textIn(p, '#causal'), /Right: \[1, 0, 0, 0, 0\]\./);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: the padding mask is switched off and on with Space and its cells read with the arrows', async () => {
  const { page: p, problems, close } = await open('lesson-3.html');
  const k = keys(p, 'padding');
  await k.enter();
  await k.tabTo((f) => f.includes('|checkbox|'));
  await k.press('Space');
  const state = await p.$eval('#padding', (el) => el.state);
  assert.equal(state.forget, true);
  assert.ok(state.padWeight > 0);
  assert.match(await textIn(p, '#padding'), new RegExp(`gives ${num(state.padWeight * 100, 1)}% of its attention to (the <pad> slot|its \\d <pad> slots)`));
  // The share is the token's whole row over the pad columns, read back from the grids' cells:
  // the sentence names the token and sentence whose share is largest, and that share.
  const shares = await p.$eval('#padding', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-heatmap'), (grid, b) => {
    const cols = Array.from(grid.querySelectorAll('[role="columnheader"]'), (c) => c.textContent.trim());
    return Array.from(grid.querySelectorAll('[role="row"]')).filter((r) => r.querySelector('[role="gridcell"]') && r.querySelector('[role="rowheader"]').textContent.trim() !== '<pad>')
      .map((r) => {
        const cells = Array.from(r.querySelectorAll('[role="gridcell"]'));
        const keys = cols.slice(-cells.length);  // after the corner's header
        return { b, token: r.querySelector('[role="rowheader"]').textContent.trim(), share: cells.reduce((sum, c, j) => sum + (keys[j] === '<pad>' ? Number(c.dataset.value) : 0), 0) };
      });
  }).flat());
  const top = shares.reduce((a, s) => (s.share > a.share ? s : a));
  assert.ok(Math.abs(top.share - state.padWeight) < 1e-6, `${top.share} against ${state.padWeight}`);
  assert.ok((await textIn(p, '#padding')).includes(`"${top.token}" in sentence ${top.b + 1} gives ${num(top.share * 100, 1)}% of its attention`));
  const readouts = () => p.$eval('#padding', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-readout'), (r) => r.textContent));
  // The first sentence's grid, then (past its export menu) the second's: "the cat sat" padded to 5.
  await k.tabTo((f) => f.includes('|gridcell|'));
  await k.press('End');
  assert.match((await readouts())[0], /^query \u201ctime\u201d \u2192 key \u201carrow\u201d: \d\.\d\d$/);
  await k.tabTo((f) => !f.includes('|gridcell|'));
  await k.tabTo((f) => f.includes('|gridcell|'));
  await k.press('End');
  const weights = await p.$eval('#padding', (el) => el.views[1].data.weights[0]);
  assert.ok(weights[4] > 0);
  // Two <pad> columns: the readout names which one by its position.
  assert.equal((await readouts())[1], `query \u201cthe\u201d \u2192 key \u201c<pad>\u201d (4): ${fixed(weights[4], 2)}`);
  await k.tabTo((f) => f.includes('|checkbox|'), { back: true });
  await k.press('Space');
  assert.equal((await p.$eval('#padding', (el) => el.state)).forget, false);
  assert.equal((await readouts())[1], 'query \u201cthe\u201d \u2192 key \u201c<pad>\u201d (4): masked, weight 0', 'the readout follows the mask');
  assert.match(await textIn(p, '#padding'), /every weight on a padding column is exactly 0/);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: multi-head heads are chosen with the arrow keys, and the d_k question is answered wrongly, then rightly', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  const k = keys(p, 'heads');
  await k.enter();
  await k.tabTo((f) => f.includes('|SELECT|'));
  await k.press('ArrowDown', 2);
  assert.equal((await p.$eval('#heads', (el) => el.state)).heads, 8);
  await k.tabTo((f) => f.includes('|INPUT|text|'));
  await k.type('8');
  await k.press('Enter');
  assert.match(await textIn(p, '#heads'), /Not yet\. Your guess is too high\. The 8 heads share the model width d_model = 8 equally\. Try once more\./);
  assert.match(await textIn(p, '#heads'), /d\u2096 and its scale are hidden until you answer/, 'a first miss keeps the answer hidden');
  await k.press('Control+A');
  await k.type('8');
  await k.press('Enter');
  const r = lab.multiHeadAttention({ X: lab.randomNormal({ shape: [6, 8], seed: 7 }), Wq: lab.randomNormal({ shape: [8, 8], seed: 8 }),
    Wk: lab.randomNormal({ shape: [8, 8], seed: 9 }), Wv: lab.randomNormal({ shape: [8, 8], seed: 10 }), heads: 8 });
  assert.match(await textIn(p, '#heads'), new RegExp(`Not quite: you said 8, the engine gives ${r.q.shape[2]}\\. Each head gets an equal slice of the model width: d\u2096 = d_model / h = 8 / 8 = 1\\.`));
  await k.press('Control+A');
  await k.type('1');
  await k.press('Enter');
  assert.match(await textIn(p, '#heads'), /Right: the engine gives 1\. The scale 1\/\u221ad\u2096 becomes 1/);
  assert.match(await textIn(p, '#heads'), /Each head: d\u2096 = 1, scale 1;/);
  await k.tabTo((f) => f.includes('|checkbox|'), { back: true });
  await k.press('Space');
  assert.ok((await p.$eval('#heads', (el) => el.state)).diff > 0, 'the forgotten transpose scrambles the output');
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: the shape quiz takes a wrong shape (a hint), a second wrong one (the rule and the shape, kept), moves focus to the next question, then a right one', async () => {
  const { page: p, problems, close } = await open('lesson-3.html');
  const k = keys(p, 'shapes3');
  await k.enter();
  await k.tabTo((f) => f.includes('|INPUT|text|'));
  const trace = lab.traceShapes({ batch: 32, n: 50, dModel: 64, heads: 1, dk: 64, dv: 128 });
  const first = trace.steps[0];
  await k.type('1, 2, 3');
  await k.press('Enter');
  const rows = () => p.$$eval('#shapes3 tbody tr', (trs) => trs.map((tr) => tr.innerText.replace(/\s+/g, ' ').trim()));
  assert.match((await rows())[0], /Not yet\. There is one token id for each token of each sequence in the batch\. Try once more\./);
  assert.doesNotMatch((await rows())[0], new RegExp(`\\[${first.shape.join(', ')}\\]`), 'a first miss does not give the shape');
  await k.press('Control+A');
  await k.type('1, 2, 3');
  await k.press('Enter');
  assert.match((await rows())[0], new RegExp(`Not quite: it is \\[${first.shape.join(', ')}\\]\\. \\[batch, n\\] = \\[${first.shape.join(', ')}\\]: one id for each of the n tokens`));
  let f = await focused(p);
  assert.match(f, /^shapes3\|INPUT\|text\|/, 'focus moved to the next question, not <body>');
  const second = trace.steps[1];
  await k.type(second.shape.join(', '));
  await k.press('Enter');
  assert.match((await rows())[1], new RegExp(`Right: \\[${second.shape.join(', ')}\\]\\.`));
  assert.match((await rows())[0], /Not quite/, 'the first answer\'s why is still beside its row');
  f = await focused(p);
  assert.match(f, /^shapes3\|INPUT\|text\|/);
  // The counts under the table are products of the shapes: they wait for the last answer.
  const summary = () => p.$eval('#shapes3', (el) => el.shadowRoot.querySelector('.al-frame > p.al-muted[aria-live]').textContent);
  assert.equal(await summary(), 'The parameter count and the size of the attention matrices appear once every shape is answered.');
  for (const step of trace.steps.slice(2)) {
    await k.type(step.shape.join(', '));
    await k.press('Enter');
  }
  assert.equal(await summary(), `W_Q, W_K, W_V and W_O hold ${trace.parameters.toLocaleString('en-US')} parameters; the attention matrices hold ${trace.scoreEntries.toLocaleString('en-US')} numbers, growing with n\u00b2.`);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: the softmax demo question wrong (a hint), wrong again (why), then right, then new inputs typed and entered', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  const k = keys(p, 'softmax');
  await k.enter();
  await k.tabTo(isButton('NaN: it overflows'));
  await k.press('Enter');
  assert.match(await textIn(p, '#softmax'), /Not yet\. e\^1000 does overflow, but must a softmax compute it\?/);
  await k.press('Enter');
  assert.match(await textIn(p, '#softmax'), /Only when computed naively\. Subtracting the maximum first gives the same answer as for \[0, 1, 2\]/);
  await k.tabTo(isButton('the same as softmax([0, 1, 2])'), { back: true });
  await k.press('Enter');
  assert.match(await textIn(p, '#softmax'), /Right: adding the same number to every input changes nothing/);
  await k.tabTo((f) => f.includes('|INPUT|text|'));
  await k.press('Control+A');
  await k.type('1, 2, 3');
  await k.press('Enter');
  const safe = await p.$$eval('#softmax tbody tr', (trs) => trs.find((tr) => tr.querySelector('th').textContent === 'safe: softmax').innerText.split('\t').slice(1));
  assert.deepEqual(safe, Array.from(lab.softmax([1, 2, 3]).data, (x) => fixed(x, 4)));
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: the scaling experiment takes a wrong estimate (a hint), a second one (why), then a right one', async () => {
  const { page: p, problems, close } = await open('lesson-2.html');
  const k = keys(p, 'scaling');
  await k.enter();
  await k.tabTo((f) => f.includes('|INPUT|text|'));
  await p.waitForFunction(() => Array.isArray(document.querySelector('#scaling').stats), null, { timeout: 20000 });
  const stats = await p.$eval('#scaling', (el) => el.stats[el.stats.length - 1]);
  await k.type('5');
  await k.press('Enter');
  assert.match(await textIn(p, '#scaling'), /Not yet\. Your guess is too low\. q\u00b7k adds up 512 products of independent entries: what is the variance of such a sum, and what is the standard deviation\? Try once more\./);
  assert.equal(await p.isVisible('#scaling svg.al-chart'), false, 'a first miss keeps the results hidden');
  await k.press('Enter');
  assert.match(await textIn(p, '#scaling'), /Not quite: you said 5, the engine gives [\d.]+\. q\u00b7k adds up 512 products, each of variance 1, so its variance is 512 and its standard deviation \u221a512\./);
  await k.press('Control+A');
  await k.type(stats.std.toFixed(1));
  await k.press('Enter');
  assert.match(await textIn(p, '#scaling'), /Right: the engine gives/);
  assert.equal(await p.isVisible('#scaling svg.al-chart'), true, 'the results are shown');
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: the mistakes lab is skipped (focus lands on the symptom, the fix appears), then answered wrongly twice (a hint, then why), then rightly', async () => {
  const { page: p, problems, close } = await open('lesson-5.html');
  const k = keys(p, 'mistakes-axis');
  const fixedShown = () => p.$eval('#mistakes-axis', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-code-fixed'), (c) => c.checkVisibility()));
  await k.enter();
  assert.deepEqual(await fixedShown(), [], 'the fixed line waits for the answer');
  await k.tabTo(isButton('Show me without predicting'));
  await k.press('Enter');
  assert.equal(await focused(p), 'mistakes-axis|P||What you would see: Each column of the w', 'focus is on the symptom, not <body>');
  assert.deepEqual(await fixedShown(), [true]);
  // The next mistake in the menu: a wrong answer says why and names the engine's answer.
  await k.tabTo((f) => f.includes('|SELECT|'), { back: true });
  await k.press('ArrowDown');
  assert.equal((await p.$eval('#mistakes-axis', (el) => el.state)).mistake, 'mask-after-softmax');
  assert.deepEqual(await fixedShown(), []);
  await k.tabTo(isLongButton('no cell: zeroing after the softmax gives the same zeros'));
  await k.press('Enter');
  let text = await textIn(p, '#mistakes-axis');
  assert.match(text, /Not yet\. The zeros are the same, but the surviving weights were shared with the masked keys, so they are smaller than they should be\. Try once more\./);
  assert.doesNotMatch(text, /The engine's answer/, 'a first miss does not name the answer');
  await k.press('Enter');
  text = await textIn(p, '#mistakes-axis');
  assert.match(text, /Not quite\. The zeros are the same, but the surviving weights were shared with the masked keys/);
  assert.match(text, /The engine's answer: the visible cells of every row that has a masked key\./);
  // And the one after it, rightly.
  await k.tabTo((f) => f.includes('|SELECT|'), { back: true });
  await k.press('ArrowDown');
  await k.tabTo(isButton('every cell: each row gets sharper'));
  await k.press('Enter');
  text = await textIn(p, '#mistakes-axis');
  assert.match(text, /Right\. 25 of 25 weights change by more than 10\u207b\u2076\./);
  assert.match(text, /Fixed:\s+scores = q @ k\.T \/ np\.sqrt\(d_k\)/);
  assert.deepEqual(problems, []);
  await close();
});

test('keyboard only: after the stepper redraws for new tokens, one arrow key still moves one step', async () => {
  const { page: p, problems, close } = await open('lesson-1.html');
  await p.evaluate(() => document.querySelector('#lab').setAttribute('tokens', 'a b c d e'));
  await p.waitForFunction(() => document.querySelector('#lab').status === 'ready' && document.querySelector('#lab').state.tokens.length === 5);
  await p.focus('#lab button:has-text("Next")');
  const before = (await p.$eval('#lab', (el) => el.state)).stepIndex;
  await p.keyboard.press('ArrowRight');
  assert.equal((await p.$eval('#lab', (el) => el.state)).stepIndex, before + 1, 'one step per key, not one per redraw');
  assert.deepEqual(problems, []);
  await close();
});
