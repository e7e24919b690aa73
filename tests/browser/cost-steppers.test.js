'use strict';
// <online-softmax-stepper> and <kv-cache-stepper> on lesson 4, used as a learner does: with
// the mouse and with the keyboard only, at 1280 and 390 px. Shown numbers are checked against
// the engine run in node on the same seeded inputs.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { launch, openSettled, textSlips, drawnText } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const { resolveInputs } = require('../../web/src/kit/inputs.js');
const { seedFrom } = require('../../web/src/ui/author-data.js');
const online = require('../../web/src/ui/online-softmax.js');
const kv = require('../../web/src/ui/kv-cache.js');
const { num, vector, grouped } = require('../../web/src/ui/format.js');

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

const open = (opts) => openSettled(browser, `${server.url}dist/lesson-4.html`, opts);
const stateOf = (p, selector) => p.$eval(selector, (el) => el.state);
const textOf = drawnText;
const tableRows = (p, selector) => p.$$eval(`${selector} tbody tr`, (trs) => Object.fromEntries(trs.map((r) => [r.querySelector('th').textContent, Array.from(r.querySelectorAll('td'), (td) => td.textContent)])));
/** The focused element inside the widget, or the tag that has focus when it fell out. */
const focusIn = (p, selector) => p.evaluate((sel) => {
  const host = document.querySelector(sel);
  if (document.activeElement !== host) return document.activeElement ? document.activeElement.tagName : null;
  const el = host.shadowRoot.activeElement;
  return el ? `${el.tagName}:${el.textContent.trim().slice(0, 16)}` : 'HOST';
}, selector);

/** What the online stepper computes for `tokens` and the row of `query`, from the engine in node. */
function explainDefault(query, options, tokens = online.DEFAULT_TOKENS) {
  const inputs = resolveInputs(lab, { tokens }, 'online-softmax-stepper');
  return lab.explainOnlineSoftmax(inputs.Q, inputs.K, inputs.V, tokens.indexOf(query), options);
}

// Lesson 4's #online stepper: lesson 1's sentence, the row of "flies", blocks of 2, as in the
// NumPy listing beside it.
const TIME_FLIES = ['time', 'flies', 'like', 'an', 'arrow'];
const explainLesson = () => explainDefault('flies', { block: 2 }, TIME_FLIES);

test('online softmax: each block\'s running values stay hidden until the learner predicts, then show the engine\'s numbers; o / l equals ordinary attention', async () => {
  const { page: p, problems, close } = await open();
  const e = explainLesson();
  assert.deepEqual(await stateOf(p, '#online'), { query: 'flies', queryIndex: 1, block: 2, causal: false, window: null, step: 'start', stepIndex: 0, blocks: 3 });
  // The numbers the listing's comments give: o / l and the log-sum-exp.
  assert.deepEqual(e.output.map((x) => Number(x.toFixed(4))), [0.4068, 0.5755, 0.0976, 0.0133]);
  assert.equal(Number(e.lse.toFixed(4)), 4.7283);
  await p.click('#online button:has-text("Next")');
  // Block 1 starts the max: no question, values shown.
  let rows = await tableRows(p, '#online .al-os-state');
  assert.deepEqual(rows['max m'], [`${'\u2212'}\u221e`, num(e.blocks[0].maxAfter, 4)]);
  assert.equal(rows['sum l'][1], num(e.blocks[0].sumAfter, 4));
  await p.click('#online button:has-text("Next")');
  rows = await tableRows(p, '#online .al-os-state');
  assert.deepEqual([rows['max m'][1], rows['rescale factor'][1], rows['sum l'][1], rows['output o'][1]], ['?', '?', '?', '?'], 'hidden before the prediction');
  const before = await textOf(p, '#online');
  assert.ok(!before.includes(num(e.blocks[1].sumAfter, 4)), 'the running sum after block 2 is nowhere on screen yet');
  const up = online.raisesMax(e.blocks[1]);
  const wrongChoice = `#online button:has-text("${up ? 'it stays the same' : 'it goes up'}")`;
  await p.click(wrongChoice);  // the wrong answer: a hint, the values still hidden
  assert.match(await textOf(p, '#online'), /Not yet\. The running max moves only if some score in this block is larger than it\./);
  rows = await tableRows(p, '#online .al-os-state');
  assert.deepEqual([rows['max m'][1], rows['sum l'][1]], ['?', '?'], 'still hidden after a first miss');
  await p.click(wrongChoice);  // wrong again: the answer and why
  const verdict = await textOf(p, '#online');
  assert.match(verdict, /Not this time: the block's largest score/);
  rows = await tableRows(p, '#online .al-os-state');
  assert.deepEqual([rows['max m'][1], rows['rescale factor'][1], rows['sum l'][1], rows['output o'][1]],
    [num(e.blocks[1].maxAfter, 4), num(e.blocks[1].rescale, 4), num(e.blocks[1].sumAfter, 4), vector(e.blocks[1].outputAfter, 3)]);
  assert.match(await p.$eval('#online', (el) => el.shadowRoot.querySelector('.al-narration').textContent), up ? /moves up/ : /m stays/);
  await p.click('#online button:has-text("Next")');
  await p.click('#online button:has-text("Next")');
  assert.equal((await stateOf(p, '#online')).step, 'finish');
  rows = await tableRows(p, '#online .al-os-result');
  assert.equal(rows['output o / l'][0], vector(e.output, 4));
  assert.equal(rows['ordinary attention'][0], vector(e.fullOutput, 4));
  const diff = lab.maxAbsDiff(lab.tensor([e.output]), lab.tensor([e.fullOutput]));
  assert.equal(rows['largest difference'][0], num(diff, 3));
  assert.ok(diff <= 1e-5);
  assert.deepEqual(problems, []);
  await close();
});

test('online softmax, keyboard only: Tab and Enter through every block, a prediction answered with Enter, block size changed, focus never on <body>', async () => {
  const { page: p, problems, close } = await open();
  await p.focus('#online button:has-text("Next")');
  await p.keyboard.press('Enter');
  await p.keyboard.press('Enter');
  assert.equal((await stateOf(p, '#online')).step, 'block-2');
  assert.match(await focusIn(p, '#online'), /^BUTTON:Next/);
  // Tab from Next reaches the prompt's first choice (past the step list and the score strip).
  for (let i = 0; i < 6 && !/^BUTTON:it goes up/.test(await focusIn(p, '#online')); i++) await p.keyboard.press('Tab');
  assert.match(await focusIn(p, '#online'), /^BUTTON:it goes up/);
  await p.keyboard.press('Enter');
  if (!online.raisesMax(explainLesson().blocks[1])) {
    // A wrong first answer: a hint, and focus stays on the choices for the second try.
    assert.match(await textOf(p, '#online'), /Not yet\./);
    assert.match(await focusIn(p, '#online'), /^BUTTON:it goes up/);
    await p.keyboard.press('Enter');
  }
  assert.match(await focusIn(p, '#online'), /^BUTTON:Next/, 'after answering, focus goes to Next');
  await p.keyboard.press('Enter');
  await p.keyboard.press('Enter');
  assert.equal((await stateOf(p, '#online')).step, 'finish');
  assert.match(await focusIn(p, '#online'), /^BUTTON:.*Back/, 'Next disabled at the end: focus moved to Back');
  await p.keyboard.press('ArrowLeft');
  assert.equal((await stateOf(p, '#online')).step, 'block-3');
  await p.focus('#online select >> nth=1');
  await p.keyboard.press('End');  // block size 4: blocks of 4 and 1
  const state = await stateOf(p, '#online');
  assert.equal(state.block, 4);
  assert.equal(state.blocks, 2);
  assert.equal(state.step, 'start', 'a new block size starts over');
  assert.match(await focusIn(p, '#online'), /^SELECT/);
  assert.deepEqual(problems, []);
  await close();
});

test('the sliding-window stepper asks how many blocks are skipped before it marks any, then skips them as the engine says', async () => {
  const { page: p, problems, close } = await open();
  const e = explainDefault('it', { block: 4, window: 4 });
  assert.deepEqual(e.blocks.map((b) => b.skipped), [true, false, false]);
  const stepsShown = () => p.$$eval('#window [part="steps"] li', (lis) => lis.map((li) => li.textContent));
  // Before the answer: no block is marked, no score (a masked one would give it away), no way on.
  assert.deepEqual(await stepsShown(), ['Start', 'Block 1', 'Block 2', 'Block 3', 'Divide']);
  const before = await textOf(p, '#window');
  assert.doesNotMatch(before, /skipped/);
  assert.match(before, /how many of the 3 blocks will the kernel skip for "it"/);
  assert.equal(await p.$eval('#window', (el) => el.shadowRoot.querySelectorAll('.al-os-score').length), 12);
  assert.deepEqual(await p.$$eval('#window', (els) => Array.from(els[0].shadowRoot.querySelectorAll('.al-os-score'), (s) => s.textContent).filter((t) => t !== '?')), []);
  assert.equal(await p.$eval('#window', (el) => el.shadowRoot.querySelector('button.al-primary').disabled), true, 'Next waits for the answer');
  // A wrong answer with the keyboard: Tab to the button "none", Enter.
  await p.focus('#window >> button:has-text("none")');
  await p.keyboard.press('Enter');
  assert.match(await textOf(p, '#window'), /Not yet\. A block is skipped only when every key in it is masked\./);
  assert.deepEqual(await stepsShown(), ['Start', 'Block 1', 'Block 2', 'Block 3', 'Divide'], 'a first miss marks no block');
  await p.keyboard.press('Enter');
  const after = await textOf(p, '#window');
  assert.match(after, /Not quite: the query of "it" sees keys 6 to 9; block 1 holds none of them, so the kernel skips 1 of the 3/);
  assert.match(await focusIn(p, '#window'), /^BUTTON:Next/);
  assert.deepEqual(await stepsShown(), ['Start', 'Block 1 (skipped)', 'Block 2', 'Block 3', 'Divide']);
  await p.keyboard.press('Enter');
  assert.match(await p.$eval('#window', (el) => el.shadowRoot.querySelector('.al-narration').textContent), /^Block 1 holds keys 1 to 4 .*so the kernel skips the block/);
  // A new window asks again; the right answer is judged right.
  await p.selectOption('#window >> label:has-text("window") >> select', '3');
  const e3 = explainDefault('it', { block: 4, window: 3 });
  const skips = e3.blocks.filter((b) => b.skipped).length;
  assert.deepEqual(await stepsShown(), ['Start', 'Block 1', 'Block 2', 'Block 3', 'Divide']);
  await p.click(`#window >> .al-group button:has-text("${skips === 0 ? 'none' : skips}")`);
  assert.match(await textOf(p, '#window'), /Right: the query of "it" sees keys 7 to 9/);
  assert.deepEqual(problems, []);
  await close();
});

/** The KV stepper's figures at every step, from the engine in node, as the widget computes them. */
function kvRun(kvHeads) {
  const tokens = kv.DEFAULT_TOKENS, n = tokens.length;
  const { Q, K, V } = kv.seededInputs(lab, seedFrom(tokens.join(' ')), n);
  const Kh = kv.prefix(K, n, kvHeads), Vh = kv.prefix(V, n, kvHeads);
  const cache = lab.createKVCache({ heads: kv.HEADS, kvHeads, dHead: kv.D_HEAD, maxLength: n });
  const out = [];
  for (let t = 0; t < n; t++) {
    cache.append(kv.tokenRows(Kh, t), kv.tokenRows(Vh, t));
    const r = cache.attend(kv.tokenRows(Q, t));
    out.push({ multiplyAdds: r.multiplyAdds, without: r.multiplyAddsWithoutCache, weights: kv.rowsOf(r.weights), bytes: cache.bytes });
  }
  cache.dispose();
  return out;
}

test('KV cache: the cache grows a row per token, the weights and counts are the engine\'s, the cost without the cache waits for the prediction', async () => {
  const { page: p, problems, close } = await open();
  const run = kvRun(4);
  for (let t = 0; t < 5; t++) {
    const cacheRows = await p.$eval('#kvcache .al-matrix', (el) => el.querySelectorAll('tbody tr').length);
    assert.equal(cacheRows, t + 1, `step ${t + 1}: the K cache has ${t + 1} rows`);
    const cells = await p.$$eval('#kvcache [role="gridcell"]', (cs) => cs.map((c) => c.textContent));
    assert.deepEqual(cells, run[t].weights.flat().map((w) => w.toFixed(2)), `step ${t + 1}: the new query's weights`);
    const figures = await tableRows(p, '#kvcache .al-kv-figures');
    assert.deepEqual(figures['this token'], [grouped(run[t].multiplyAdds), '?']);
    const diff = Number(await p.$eval('#kvcache [data-diff]', (el) => el.dataset.diff));
    assert.ok(diff <= 1e-5, `step ${t + 1}: the row equals full causal attention (${diff})`);
    if (t < 4) await p.click('#kvcache button:has-text("Next token")');
  }
  // The total with the cache over all steps so far is the same number as one step without it
  // (a sum of 1..n either way), so it is hidden with the answer.
  const withTotal = run.slice(0, 5).reduce((a, r) => a + r.multiplyAdds, 0);
  assert.equal(withTotal, run[4].without);
  const narration = await p.$eval('#kvcache', (el) => el.shadowRoot.querySelector('.al-narration').textContent);
  assert.ok(!narration.includes(grouped(run[4].without)) && /hidden until you answer/.test(narration), 'the cost without the cache is not in the narration before the answer');
  assert.deepEqual((await tableRows(p, '#kvcache .al-kv-figures'))['all 5 tokens so far'], ['?', '?']);
  assert.ok(!(await textOf(p, '#kvcache')).includes(grouped(run[7].without)), 'the answer (the step at 8 tokens) is nowhere on screen');
  await p.click('#kvcache button:has-text("about 4\u00d7")');
  assert.match(await textOf(p, '#kvcache'), /Right: without the cache, attention in the step at 8 tokens takes/);
  const figures = await tableRows(p, '#kvcache .al-kv-figures');
  assert.deepEqual(figures['this token'], [grouped(run[4].multiplyAdds), grouped(run[4].without)]);
  const withoutTotal = run.slice(0, 5).reduce((a, r) => a + r.without, 0);
  assert.deepEqual(figures['all 5 tokens so far'], [grouped(withTotal), grouped(withoutTotal)]);
  assert.match(await textOf(p, '#kvcache'), new RegExp(`Generating all 5 tokens with the cache took ${grouped(withTotal)} multiply-adds: as many as this one step without it`));
  assert.equal((await stateOf(p, '#kvcache')).answered, true);
  // Multi-query: the cache shrinks by heads / kv heads, the check still holds.
  await p.selectOption('#kvcache select', '1');
  const mqa = kvRun(1);
  const state = await stateOf(p, '#kvcache');
  assert.deepEqual([state.kvHeads, state.step, state.bytes], [1, 5, mqa[4].bytes]);
  assert.equal(run[4].bytes / mqa[4].bytes, 4);
  const bytes = await tableRows(p, '#kvcache .al-kv-bytes-table');
  assert.deepEqual(bytes['MQA, 1 kv head'][0], kv.bytesText(lab.kvCacheBytes({ kvHeads: 1, dHead: kv.D_HEAD, dtype: 'float32', tokens: 5 }).bytes));
  assert.ok(Number(await p.$eval('#kvcache [data-diff]', (el) => el.dataset.diff)) <= 1e-5);
  assert.deepEqual(await p.$$eval('#kvcache [role="gridcell"]', (cs) => cs.map((c) => c.textContent)), mqa[4].weights.flat().map((w) => w.toFixed(2)));
  assert.deepEqual(problems, []);
  await close();
});

test('KV cache, keyboard only: arrow keys and Enter step to the last token and back, focus stays in the widget', async () => {
  const { page: p, problems, close } = await open();
  await p.focus('#kvcache button:has-text("Next token")');
  for (let i = 0; i < kv.DEFAULT_TOKENS.length - 1; i++) {
    await p.keyboard.press('Enter');
    assert.deepEqual(await textSlips(p), [], `step ${i + 2} shows no missing value as text`);
  }
  assert.equal((await stateOf(p, '#kvcache')).step, kv.DEFAULT_TOKENS.length);
  assert.match(await focusIn(p, '#kvcache'), /^BUTTON:.*Back/);
  await p.keyboard.press('ArrowLeft');
  await p.keyboard.press('ArrowLeft');
  assert.equal((await stateOf(p, '#kvcache')).step, kv.DEFAULT_TOKENS.length - 2);
  await p.focus('#kvcache select');
  await p.keyboard.press('ArrowDown');
  assert.equal((await stateOf(p, '#kvcache')).kvHeads, 2);
  assert.match(await focusIn(p, '#kvcache'), /^SELECT/);
  assert.deepEqual(problems, []);
  await close();
});

test('lesson 4 at 390 px: no sideways scroll, the steppers fit, no widget text under 11 px', async () => {
  const { page: p, problems, close } = await open({ width: 390, height: 844 });
  for (let i = 0; i < 4; i++) {
    for (const id of ['#online', '#kvcache']) {
      const over = await p.$eval(id, (el) => Array.from(el.shadowRoot.querySelectorAll('.al-frame')).filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.className));
      assert.deepEqual(over, [], `${id} after ${i} steps scrolls sideways`);
    }
    await p.click('#online button:has-text("Next")');
    await p.click('#kvcache button:has-text("Next token")');
  }
  const result = await p.evaluate(() => {
    const small = [];
    for (const host of document.querySelectorAll('online-softmax-stepper, kv-cache-stepper')) {
      const walker = document.createTreeWalker(host.shadowRoot, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!n.textContent.trim() || !el || el.closest('.al-sr, [hidden]') || !el.getClientRects().length) continue;
        const size = parseFloat(getComputedStyle(el).fontSize);
        if (size < 10.95) small.push(`${host.id} ${el.localName}.${el.className}: ${size.toFixed(1)}px`);
      }
    }
    return { small, scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth };
  });
  assert.equal(result.scroll, 0);
  assert.deepEqual(result.small.slice(0, 10), []);
  assert.deepEqual(problems, []);
  await close();
});

test('print lists the steppers\' answers in the page\'s "Answers" section, points to them from their predictions, and hides the choices', async () => {
  const { page: p, problems, close } = await open();
  await p.click('#online button:has-text("Next")');
  await p.click('#online button:has-text("Next")');
  await p.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await p.emulateMedia({ media: 'print' });
  const printed = await p.evaluate(() => Array.from(document.querySelectorAll('online-softmax-stepper, kv-cache-stepper'), (el) => ({
    id: el.id,
    pointers: Array.from(el.shadowRoot.querySelectorAll('.al-print-answer')).filter((a) => a.offsetParent !== null).map((a) => Number(a.textContent.match(/^Answer (\d+) is in "Answers" at the end of the page\.$/)[1])),
    choices: Array.from(el.shadowRoot.querySelectorAll('.al-predict .al-group')).some((g) => g.offsetParent !== null),
  })));
  const answers = await p.$$eval('section.attention-lab-answers li', (lis) => lis.map((li) => li.querySelectorAll('p')[1].textContent));
  const by = Object.fromEntries(printed.map((x) => [x.id, { ...x, answers: x.pointers.map((n) => answers[n - 1]) }]));
  const e = explainLesson();
  assert.deepEqual(by.online.answers, [online.judgeMaxChange(online.raisesMax(e.blocks[1]) ? 'up' : 'same', e.blocks[1]).message.replace(/^Right: /, '')]);
  const run = kvRun(4);
  assert.match(by.kvcache.answers[0], new RegExp(`^without the cache, attention in the step at 8 tokens takes ${grouped(run[7].without)} multiply-adds against ${grouped(run[3].without)} at 4`));
  assert.ok(!by.online.choices && !by.kvcache.choices, 'the choices are not printed');
  assert.deepEqual(problems, []);
  await close();
});

test('the steppers follow a new tokens attribute, and too few words for the KV stepper is a message naming it, not a broken page', async () => {
  const { page: p, problems, close } = await open();
  await p.$eval('#kvcache', (el) => el.setAttribute('tokens', 'a b'));
  await p.waitForFunction(() => document.querySelector('#kvcache').status === 'error');
  assert.equal(await p.$eval('#kvcache', (el) => el.shadowRoot.querySelector('[part="message"]').textContent),
    'This widget could not be shown. <kv-cache-stepper>: tokens has 2 words; expected 8 to 12');
  await p.$eval('#kvcache', (el) => { el.tokens = ['the', 'cat', 'sat', 'on', 'the', 'mat', 'and', 'slept']; });
  await p.waitForFunction(() => document.querySelector('#kvcache').status === 'ready');
  assert.equal((await stateOf(p, '#kvcache')).token, 'the');
  await p.$eval('#online', (el) => el.setAttribute('tokens', 'one two'));
  await p.waitForFunction(() => document.querySelector('#online').status === 'ready' && document.querySelector('#online').state.blocks === 1);
  assert.deepEqual(await stateOf(p, '#online'), { query: 'two', queryIndex: 1, block: 2, causal: false, window: null, step: 'start', stepIndex: 0, blocks: 1 });
  await p.click('#online button:has-text("Next")');
  assert.equal((await stateOf(p, '#online')).step, 'block-1', 'one key press, one step (no doubled listener after the rebuild)');
  problems.splice(0, problems.length, ...problems.filter((x) => !x.includes('kv-cache-stepper>: tokens has 2 words')));
  assert.deepEqual(problems, []);
  await close();
});
