'use strict';
// <attention-trainer>'s knock-out mode and composition view as a learner uses them, keyboard
// only: train, predict which heads the model needs, knock heads out one and two at a time (zero,
// then mean), check the prediction, read the composition grid; every number against node's
// engine on the same seed and steps. Then the same on the page's own thread under a strict CSP,
// a link that restores the knocked-out heads, 390 px in dark, and lesson 6's question kept apart
// from its answer.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, watchedPage, settled, sendPolicy, CSP } = require('./browser.js');
const { startServer } = require('../../scripts/server.js');
const { loadAttentionLab } = require('../../index.js');
const ko = require('../../web/src/ui/trainer-knockout.js');

const root = path.resolve(__dirname, '..', '..');
const HOST = 'tests/browser/hosts/trainer.html';  // <attention-trainer id="tr" steps="600">

let browser, server, lab, node;
test.before(async () => {
  browser = await launch();
  server = await startServer({ root });
  lab = await loadAttentionLab();
  // node's engine: the same seed, trained the widget's 600 steps
  node = lab.createTrainer({ seed: 1 });
  node.step(600);
});
test.after(async () => {
  node.dispose();
  await server.close();
  await browser.close();
});

async function open(query = '', opts = {}) {
  const w = await watchedPage(browser, opts);
  if (opts.csp) await sendPolicy(w.page, `${server.url}${HOST}*`, opts.csp);
  await w.page.goto(`${server.url}${HOST}${query}`);
  await settled(w.page, 60000);
  return w;
}

const state = (page) => page.evaluate(() => document.querySelector('attention-trainer').state);
async function waitState(page, check, timeout = 240000) {
  const end = Date.now() + timeout;
  for (;;) {
    const s = await state(page);
    if (s && check(s)) return s;
    if (Date.now() > end) throw new Error(`waitState: timed out on ${check} with ${JSON.stringify(s)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const panel = (page) => page.evaluate(() => document.querySelector('attention-trainer').shadowRoot.querySelector('.al-trainer-knockout').innerText);
const focused = (page) => page.evaluate(() => {
  const el = document.querySelector('attention-trainer').shadowRoot.activeElement;
  return el && { text: el.textContent, layer: el.dataset.layer, head: el.dataset.head, pressed: el.getAttribute('aria-pressed') };
});
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
/** Waits for the knock-out of `heads` in `mode` at the widget's step. */
const knocked = (page, heads, mode = 'zero') => waitState(page, (s) => s.knockout && same(s.knockout.heads, heads) && s.knockout.mode === mode, 30000);

/** Skips the training question with the keyboard and trains to the widget's 600 steps. */
async function trainToEnd(page) {
  await page.locator('attention-trainer .al-trainer-predict button:has-text("Skip the prediction")').focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');  // focus is on Train
  return waitState(page, (s) => !s.running && s.step === 600);
}

test('keyboard only: after training, the learner predicts, knocks heads out one and two at a time, zero then mean, and reads the engine\'s numbers', async () => {
  const w = await open();
  const { page } = w;
  assert.equal(await page.locator('attention-trainer .al-trainer-knockout').isVisible(), false, 'no knock-out panel before training');
  await trainToEnd(page);
  // the question first: no button to knock a head out yet, no figure
  assert.equal(await page.locator('attention-trainer .al-ko-head').first().isVisible(), false);
  assert.doesNotMatch(await panel(page), /\d\.\d\d/, 'no loss shown before the prediction');
  await page.locator('attention-trainer .al-ko-predict input[data-layer="1"][data-head="0"]').focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');  // past layer 1 head 1 to Lock in
  await page.keyboard.press('Enter');
  assert.deepEqual(await focused(page), { text: 'head 0', layer: '0', head: '0', pressed: 'false' }, 'lock-in moves focus to the first head');
  const base = node.ablate({ heads: [], mode: 'zero' });
  const none = await knocked(page, []);
  assert.equal(none.knockout.baselineScoredLoss, base.baseline.scoredLoss);
  // Tab to layer 1 head 0, Space knocks it out
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.deepEqual(await focused(page), { text: 'head 0', layer: '1', head: '0', pressed: 'false' });
  await page.keyboard.press('Space');
  const one = node.ablate({ heads: [[1, 0]], mode: 'zero' });
  let s = await knocked(page, [[1, 0]]);
  assert.equal(s.knockout.scoredLoss, one.scoredLoss, 'the widget\'s loss on the repeat is node\'s engine\'s');
  assert.equal(s.knockout.step, 600);
  let text = await panel(page);
  assert.ok(text.includes(ko.knockoutText({ ...one, step: 600 }, { uniformLoss: node.uniformLoss, recordsHeads: true, options: node.options }).loss), text);
  for (let i = 0; i < 4; i++) assert.ok(text.includes(`layer ${i >> 1} head ${i & 1}: ${one.induction[i].toFixed(2)}`), `induction score after, head ${i}`);
  // and layer 1 head 1 with it: the two together
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  const both = node.ablate({ heads: [[1, 0], [1, 1]], mode: 'zero' });
  s = await knocked(page, [[1, 0], [1, 1]]);
  assert.equal(s.knockout.scoredLoss, both.scoredLoss);
  assert.ok(ko.matters(both, node.uniformLoss) && !ko.matters(one, node.uniformLoss), 'one says little, both say much');
  await page.waitForURL(/tr\.ko=1\.0-1\.1/);  // the knocked-out heads are in the link (written at most every 200 ms)
  const cards = await page.$$eval('attention-trainer .al-trainer-head', (els) => els.map((e) => e.classList.contains('al-knocked')));
  assert.deepEqual(cards, [false, false, true, true], 'the grid marks the heads knocked out');
  // mean instead of zero: the select, with the keyboard
  await page.locator('attention-trainer .al-ko-tool select').focus();
  await page.keyboard.press('ArrowDown');
  const mean = node.ablate({ heads: [[1, 0], [1, 1]], mode: 'mean' });
  s = await knocked(page, [[1, 0], [1, 1]], 'mean');
  assert.equal(s.knockout.scoredLoss, mean.scoredLoss);
  assert.match(await panel(page), /With layer 1 head 0 and layer 1 head 1 replaced by their mean outputs, /);
  await page.waitForURL(/tr\.kmode=mean/);
  // check the prediction: every head alone, each layer together, judged by the one rule
  await page.locator('attention-trainer button:has-text("Check my prediction")').focus();
  await page.keyboard.press('Enter');
  await page.locator('attention-trainer .al-ko-verdict').waitFor({ state: 'visible', timeout: 30000 });
  const singles = [[0, 0], [0, 1], [1, 0], [1, 1]].map((p) => node.ablate({ heads: [p], mode: 'zero' }));
  const layers = [0, 1].map((l) => node.ablate({ heads: [[l, 0], [l, 1]], mode: 'zero' }));
  const v = ko.judgeKnockout([[1, 0]], singles, layers, node.uniformLoss);
  text = await page.locator('attention-trainer .al-ko-verdict').innerText();
  for (const line of [...v.lines, ...v.cover]) assert.ok(text.includes(line), `the verdict says: ${line}\n${text}`);
  assert.match(text, /^What the knock-outs show \(step 600\)\n+Not quite: you picked layer 1 head 0\./);
  // the Check button is gone once answered: the focus is on the verdict's heading, not on the page
  assert.equal(await page.evaluate(() => document.querySelector('attention-trainer').shadowRoot.activeElement.textContent), 'What the knock-outs show (step 600)');
  // the composition grid: node's K-composition in each cell's name
  const c = node.composition();
  await page.locator('attention-trainer .al-ko-composition [role="gridcell"]').first().waitFor();
  const cells = await page.$$eval('attention-trainer .al-ko-composition [role="gridcell"]', (els) => els.map((e) => e.getAttribute('aria-label')));
  assert.equal(cells.length, 4);
  for (const e of c.composition) {
    assert.ok(cells.some((l) => l.startsWith(`${e.k.toFixed(2)}: earlier head ${e.from.join('.')}, later head ${e.to.join('.')}, score`)), `${e.from}->${e.to} ${e.k}: ${cells}`);
  }
  // (the widget adds what the same heads scored untrained, which tests/node/trainer-knockout.test.js checks)
  assert.ok((await panel(page)).includes(ko.strongestText(c, 'k').split(' (')[0]));
  // V-composition through the keyboard
  await page.locator('attention-trainer .al-ko-composition select').focus();
  await page.keyboard.press('End');
  await waitState(page, (st) => st.composition === 'v');
  const vcells = await page.$$eval('attention-trainer .al-ko-composition [role="gridcell"]', (els) => els.map((e) => e.textContent));
  assert.deepEqual(vcells, c.composition.map((e) => e.v.toFixed(2)));
  // training again puts every head back in the model the learner sees
  await page.locator('attention-trainer button:has-text("Continue")').click();
  await waitState(page, (st) => st.running);
  assert.equal(await page.locator('attention-trainer .al-ko-tool').isVisible(), false);
  assert.match(await panel(page), /Pause the training to knock heads out/);
  // Pause (once a step past 600 is reported, so there are new weights): the panel is back, and the
  // knock-out shown is of the weights as they now are
  await waitState(page, (st) => st.step > 600, 60000);
  await page.locator('attention-trainer button:has-text("Pause")').focus();
  await page.keyboard.press('Enter');
  s = await waitState(page, (st) => !st.running && st.knockout && st.knockout.step === st.step, 60000);
  assert.ok(s.step > 600);
  assert.equal(await page.locator('attention-trainer .al-ko-tool').isVisible(), true);
  const later = lab.createTrainer({ seed: 1 });
  later.step(s.step);
  assert.equal(s.knockout.scoredLoss, later.ablate({ heads: [[1, 0], [1, 1]], mode: 'mean' }).scoredLoss, `node's engine at step ${s.step}`);
  later.dispose();
  // Put every head back: the button is disabled then, so the focus goes to the first head, not to the page
  await page.locator('attention-trainer button:has-text("Put every head back")').focus();
  await page.keyboard.press('Enter');
  await knocked(page, [], 'mean');
  assert.deepEqual(await focused(page), { text: 'head 0', layer: '0', head: '0', pressed: 'false' });
  assert.deepEqual(w.problems, []);
  await w.close();
});

test('under a strict CSP with no worker the page runs the knock-outs itself; a link restores the heads knocked out', async () => {
  const w = await open('?tr.ko=0.1&tr.comp=q', { csp: `${CSP.strict}; worker-src 'none'` });
  const { page } = w;
  await trainToEnd(page);
  assert.equal((await state(page)).runner, 'page');
  await page.click('attention-trainer .al-ko-predict button:has-text("Skip the prediction")');
  const s = await knocked(page, [[0, 1]]);
  assert.equal(s.knockout.scoredLoss, node.ablate({ heads: [[0, 1]], mode: 'zero' }).scoredLoss);
  assert.equal(s.composition, 'q');
  const c = node.composition();
  await page.locator('attention-trainer .al-ko-composition [role="gridcell"]').first().waitFor();
  const cells = await page.$$eval('attention-trainer .al-ko-composition [role="gridcell"]', (els) => els.map((e) => e.textContent));
  assert.deepEqual(cells, c.composition.map((e) => e.q.toFixed(2)));
  // a click on a pressed head puts it back
  await page.click('attention-trainer .al-ko-head[data-layer="0"][data-head="1"]');
  await knocked(page, []);
  await page.waitForURL((url) => !/tr\.ko=/.test(url.search));
  // (w.problems holds the policy's reports of the worker it refused, as the trainer's own CSP test expects)
  await w.close();
});

test('a knock-out click redraws within a few engine calls: measured from the click to the new loss on screen (reported, not asserted)', async () => {
  const w = await open();
  const { page } = w;
  await trainToEnd(page);
  await page.click('attention-trainer .al-ko-predict button:has-text("Skip the prediction")');
  await knocked(page, []);
  const times = [];
  for (let i = 0; i < 6; i++) {
    const [l, k] = [[1, 0], [1, 1], [0, 1]][i % 3];
    times.push(await page.evaluate(([layer, head]) => new Promise((resolve) => {
      const el = document.querySelector('attention-trainer');
      const result = el.shadowRoot.querySelector('.al-ko-result');
      const t0 = performance.now();
      const seen = new MutationObserver(() => {
        seen.disconnect();
        requestAnimationFrame(() => resolve(performance.now() - t0));
      });
      seen.observe(result, { childList: true, characterData: true, subtree: true });
      el.shadowRoot.querySelector(`.al-ko-head[data-layer="${layer}"][data-head="${head}"]`).click();
    }), [l, k]));
  }
  times.sort((a, b) => a - b);
  console.log(`# knock-out click to redrawn result (worker, 2x2 model, ms): median ${times[3].toFixed(1)}, all ${times.map((x) => x.toFixed(0)).join(' ')}`);
  assert.equal(times.length, 6);
  await w.close();
});

for (const [width, scheme] of [[390, 'dark'], [1280, 'light']]) {
  test(`at ${width} px in ${scheme}: the knock-out panel and composition grid fit, nothing cut or scrolled sideways`, async () => {
    const w = await open('', { width, height: 900, colorScheme: scheme });
    const { page } = w;
    // the host page sets no colour scheme of its own: the widget's theme attribute picks it
    await page.evaluate((t) => document.querySelector('attention-trainer').setAttribute('theme', t), scheme);
    await trainToEnd(page);
    await page.click('attention-trainer .al-ko-predict button:has-text("Skip the prediction")');
    await page.click('attention-trainer .al-ko-head[data-layer="0"][data-head="1"]');
    await knocked(page, [[0, 1]]);
    await page.locator('attention-trainer .al-ko-composition [role="gridcell"]').first().waitFor();
    const box = page.locator('attention-trainer .al-trainer-knockout');
    await box.scrollIntoViewIfNeeded();
    if (process.env.SCREENSHOTS) await box.screenshot({ path: path.join(process.env.SCREENSHOTS, `knockout-${width}-${scheme}.png`) });
    const fit = await page.evaluate(() => {
      const r = document.querySelector('attention-trainer').shadowRoot.querySelector('.al-trainer-knockout');
      const wide = Array.from(r.querySelectorAll('*')).filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((e) => e.className || e.localName);
      return { page: document.documentElement.scrollWidth <= document.documentElement.clientWidth, wide };
    });
    assert.deepEqual(fit, { page: true, wide: [] });
    // axe on the trainer with the panel open: nothing, minor findings included
    await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
    const violations = await page.evaluate(async () => (await window.axe.run(document.querySelector('attention-trainer'), { resultTypes: ['violations'] })).violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    assert.deepEqual(violations, []);
    assert.deepEqual(w.problems, []);
    await w.close();
  });
}

test('lesson 6: while the knock-out question is open, no prose the learner can see answers it; the answer is folded', async () => {
  for (const width of [1280, 390]) {
    const w = await watchedPage(browser, { width, height: 900 });
    const { page } = w;
    await page.goto(pathToFileURL(path.join(root, 'dist', 'lesson-6.html')).href);
    await settled(page, 60000);
    await page.click('#train .al-trainer-predict button:has-text("Skip the prediction")');
    // One step: the model is on its plateau, so the question waits (knock-outs are free)
    await page.click('#train button:has-text("One step")');
    await page.waitForFunction(() => document.querySelector('#train').state.step === 1, null, { timeout: 60000 });
    const note = page.locator('#train .al-ko-note');
    await note.waitFor({ state: 'visible', timeout: 30000 });
    assert.match(await note.textContent(), /The prediction is about the induction circuit, so it waits for an induction head to form; you can knock heads out now\./);
    assert.equal(await page.locator('#train .al-ko-predict .al-trainer-question').isVisible(), false);
    // the question is asked of a trained model: once an induction head has formed, paused
    await page.click('#train button:has-text("Continue")');
    await page.waitForFunction(() => document.querySelector('#train').state.formedAt !== null, null, { timeout: 120000 });
    await page.click('#train button:has-text("Pause")');
    await page.waitForFunction(() => !document.querySelector('#train').state.running, null, { timeout: 30000 });
    const question = page.locator('#train .al-ko-predict .al-trainer-question');
    await question.waitFor({ state: 'visible', timeout: 60000 });
    // what answers it: which heads matter, that the layer-1 pair covers for itself, the figures
    const ANSWERS = /cover for each other|previous-token head .*(knocked|takes)|both .*(together|at once)|says? little|understate|\d\.\d\d|stands out/i;
    let read = 0;
    for (const where of ['start', 'center', 'end']) {
      await question.evaluate((el, block) => el.scrollIntoView({ block }), where);
      const seen = await page.evaluate(() => {
        const out = [];
        for (const el of document.querySelectorAll('main p, main li, main h2, main h3, main summary')) {
          if (el.closest('attention-trainer') || !el.checkVisibility()) continue;
          const r = el.getBoundingClientRect();
          if (r.bottom > 0 && r.top < window.innerHeight && r.width > 0) out.push(el.textContent.replace(/\s+/g, ' ').trim());
        }
        return out;
      });
      read += seen.length;
      assert.deepEqual(seen.filter((t) => ANSWERS.test(t)), [], `scrolled to the ${where} at ${width} px`);
    }
    assert.ok(read > 0, `some prose is in view around the question at ${width} px`);
    const answer = page.locator('details.answer[data-answer="train-knockout"]');
    assert.equal(await answer.count(), 1);
    assert.equal(await answer.evaluate((d) => d.open), false);
    assert.match(await answer.textContent(), /cover for each other/, 'the check above can see the answer when it is shown');
    assert.deepEqual(w.problems, []);
    await w.close();
  }
});
