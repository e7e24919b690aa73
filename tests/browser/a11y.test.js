'use strict';
// The widgets as a screen reader meets them, keyboard only: what the focused control is called
// (Chromium's accessibility tree, through CDP) and what each live region says after each key.
// A live region speaks whenever its text is rewritten, even with the same words, so the
// recorder logs every text mutation inside a region that is live, shown and not aria-live="off".
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { launch, watchedPage, settled } = require('./browser.js');

const dist = path.resolve(__dirname, '..', '..', 'dist');
let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser.close(); });

/** Runs in the page before any script: every shadow root gets an observer of its live regions. */
function recordLiveRegions() {
  window.alSaid = [];
  const LIVE = '[aria-live],[role="status"],[role="alert"],[role="log"],output';
  const regionOf = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    return el && el.closest(LIVE);
  };
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(init) {
    const root = attach.call(this, init);
    const host = this;
    new MutationObserver((mutations) => {
      const regions = new Set(mutations.map((m) => regionOf(m.target)).filter(Boolean));
      for (const r of regions) {
        if (r.getAttribute('aria-live') === 'off' || !r.checkVisibility()) continue;
        window.alSaid.push({ host: host.id, text: r.textContent.replace(/\s+/g, ' ').trim() });
      }
    }).observe(root, { subtree: true, childList: true, characterData: true });
    return root;
  };
}

async function open(page) {
  const w = await watchedPage(browser);
  await w.page.addInitScript(recordLiveRegions);
  await w.page.goto(`file://${dist}/${page}`);
  await settled(w.page);
  const cdp = await w.page.context().newCDPSession(w.page);
  /** What a screen reader says for the focused element: its role, name and value. */
  const focused = async () => {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const f = nodes.filter((n) => n.role.value !== 'RootWebArea' && (n.properties || []).some((p) => p.name === 'focused' && p.value.value)).pop();
    return f ? { role: f.role.value, name: f.name ? f.name.value : '', value: f.value ? String(f.value.value) : undefined,
      description: f.description ? f.description.value : '' } : null;
  };
  /** The live-region text written since the last call, for widget `id`. */
  const said = async (id) => (await w.page.evaluate(() => window.alSaid.splice(0))).filter((s) => s.host === id).map((s) => s.text);
  /** Focuses a button just before widget `id`, then Tabs until `match(focused())` holds. */
  const tabTo = async (id, match, { from = true } = {}) => {
    if (from) {
      await w.page.evaluate((wid) => {
        const stop = document.createElement('button');
        stop.textContent = 'before';
        document.getElementById(wid).before(stop);
        stop.focus();
      }, id);
    }
    for (let i = 0; i < 30; i++) {
      await w.page.keyboard.press('Tab');
      const f = await focused();
      if (f && match(f)) return f;
    }
    throw new Error(`Tab never reached the control in #${id}; focus is on ${JSON.stringify(await focused())}`);
  };
  return { ...w, focused, said, tabTo };
}

test('the heatmap says only what changed: nothing for the numbers switch, the temperature once per step, a focused cell by its own name', async () => {
  const { page, problems, close, said, tabTo, focused } = await open('lesson-1.html');
  await tabTo('matrix', (f) => f.role === 'checkbox' && f.name === 'numbers');
  await said('matrix');
  await page.keyboard.press('Space');
  assert.deepEqual(await said('matrix'), [], 'switching the numbers off rewrote a live region with the same words');
  await page.keyboard.press('Space');
  await said('matrix');

  await tabTo('matrix', (f) => f.role === 'slider' && f.name === 'temperature');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual((await said('matrix')).sort(), ['2', 'Scale 0.25. Each row sums to 1.']);

  await tabTo('matrix', (f) => f.role === 'gridcell', { from: false });
  await said('matrix');
  await page.keyboard.press('ArrowRight');
  const cell = await focused();
  assert.equal(cell.role, 'gridcell');
  assert.match(cell.name, /^0\.\d\d: query time, key flies, weight 0\.\d+$/);
  assert.deepEqual(await said('matrix'), [], 'a focused grid cell was announced a second time by the readout');
  assert.deepEqual(problems, []);
  await close();
});

test('a heatmap drawn on a canvas still announces the cell the arrow keys reach', async () => {
  const { page, problems, close, said, tabTo } = await open('lesson-1.html');
  await page.evaluate(() => {
    const el = document.createElement('attention-heatmap');
    el.id = 'big';
    el.setAttribute('tokens', Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '));
    document.querySelector('main').append(el);
  });
  await settled(page);
  await tabTo('big', (f) => f.role === 'image');
  await said('big');
  await page.keyboard.press('ArrowRight');
  const spoken = await said('big');
  assert.equal(spoken.length, 1);
  assert.match(spoken[0], /query “w0” → key “w1”: 0\.\d\d/);
  assert.deepEqual(problems, []);
  await close();
});

test('the stepper announces each step once: its title and narration, not the hint or a title it already said', async () => {
  const { page, problems, close, said, tabTo } = await open('lesson-1.html');
  await tabTo('lab', (f) => f.role === 'button' && f.name === 'Next ▶');
  await said('lab');
  await page.keyboard.press('Enter');
  assert.deepEqual(await said('lab'), ['Step 2 of 4: Score', 'Your turn: work out the scores of "flies" before the diagram shows them.']);

  await tabTo('lab', (f) => f.role === 'button' && f.name === 'Show me without guessing', { from: false });
  await page.keyboard.press('Enter');
  assert.deepEqual(await said('lab'), ['The query of "flies" is compared with every key by a dot product. Scores: time 0, flies 6, like 0, an 0, arrow 9. "arrow" matches best.']);

  // The number's name carries its working; the derivation line beside it must not say it again.
  const number = await tabTo('lab', (f) => f.role === 'button' && f.name.startsWith('score of flies against time'), { from: false });
  assert.equal(number.name, 'score of flies against time: 0. q·k(time) = 0×2 + 3×0 + 0×0 + 0×1 = 0 + 0 + 0 + 0 = 0');
  assert.deepEqual(await said('lab'), []);
  assert.deepEqual(problems, []);
  await close();
});

test('headings inside a widget continue the outline of the page around it', async () => {
  const { page, problems, close } = await open('lesson-1.html');
  const levels = async (id) => page.$eval(`#${id}`, (el) => Array.from(el.shadowRoot.querySelectorAll('h1,h2,h3,h4,h5,h6'),
    (x) => `${x.getAttribute('aria-level') || x.localName[1]} ${x.textContent}`));
  // On the lesson page the stepper sits in a section under an h2.
  assert.deepEqual(await levels('lab'), ['3 Step 1 of 4: Project']);
  // A course page that puts widgets straight under its title, and one under an h4.
  await page.evaluate(() => {
    const section = document.createElement('section');
    section.innerHTML = '<h1>A course page</h1><attention-stepper id="under-title" tokens="a b c"></attention-stepper>'
      + '<h4>Deep in the page</h4><cost-lab id="deep"></cost-lab>';
    document.body.replaceChildren(section);
  });
  await settled(page);
  assert.deepEqual(await levels('under-title'), ['2 Step 1 of 4: Project']);
  // What Chromium tells a screen reader (playwright's own ariaSnapshot reads the tag, not aria-level).
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const heading = nodes.find((n) => n.role.value === 'heading' && n.name && n.name.value === 'Step 1 of 4: Project');
  assert.equal(heading.properties.find((x) => x.name === 'level').value.value, 2);
  const deep = await levels('deep');
  assert.deepEqual(deep.filter((x) => /Measured in your browser|Memory for/.test(x)).map((x) => x[0]), ['5', '5']);
  assert.ok(deep.filter((x) => x.startsWith('6 ')).length >= 2, `the cost lab's chart titles sit one level below: ${deep.join(' | ')}`);
  assert.deepEqual(problems, []);
  await close();
});

test('starting a practice round of the worked example is announced with its question, which the answer box also names', async () => {
  const { page, problems, close, tabTo, focused, said } = await open('lesson-2.html');
  await tabTo('worked', (f) => f.role === 'button' && f.name === 'Practice query q = [0, 2]');
  await said('worked');
  await page.keyboard.press('Enter');
  assert.deepEqual(await said('worked'), ['Practice round for q = [0, 2]: the numbers below are hidden until you answer. '
    + 'Predict first: you changed the query. What weight will k₁ get now?']);
  const box = await tabTo('worked', (f) => f.role === 'textbox', { from: false });
  assert.deepEqual([box.name, box.description], ['w₁ =', 'Predict first: you changed the query. What weight will k₁ get now?']);
  await page.keyboard.type('0.5');
  await page.keyboard.press('Enter');
  assert.match((await said('worked')).join(' | '), /^Not yet\. Your guess is too high\./);
  await page.keyboard.press('Enter');
  assert.match((await said('worked')).join(' | '), /^Not quite/);
  assert.equal((await focused()).role, 'textbox');
  assert.deepEqual(problems, []);
  await close();
});

test('the softmax demo\'s inputs head the columns of its table, so every number below is tied to its x', async () => {
  const { page, problems, close, tabTo } = await open('lesson-2.html');
  await tabTo('softmax', (f) => f.role === 'button' && f.name === 'the same as softmax([0, 1, 2])');
  await page.keyboard.press('Enter');
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const table = nodes.find((n) => n.role.value === 'table' && n.name && n.name.value === 'Softmax computed two ways');
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const roles = [];
  const walk = (n) => { if (/header/i.test(n.role.value)) roles.push(`${n.role.value} ${n.name.value}`); (n.childIds || []).forEach((c) => byId.has(c) && walk(byId.get(c))); };
  walk(table);
  assert.deepEqual(roles.filter((r) => r.startsWith('columnheader')), ['columnheader 1000', 'columnheader 1001', 'columnheader 1002']);
  assert.ok(roles.includes('rowheader naive: e^x (float32)'), roles.join(' | '));
  assert.deepEqual(problems, []);
  await close();
});

test('the cost lab tells a screen reader when its sweep starts and ends, not each of its runs', { timeout: 120000 }, async () => {
  const { page, problems, close, tabTo, said } = await open('lesson-4.html');
  await tabTo('costs', (f) => f.role === 'combobox' && f.name === 'up to n =');
  await page.keyboard.press('Home');
  await tabTo('costs', (f) => f.role === 'button' && f.name === 'Run', { from: false });
  await said('costs');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /^Done/.test(document.getElementById('costs').shadowRoot.querySelector('.al-cost-status').textContent), null, { timeout: 100000 });
  const spoken = await said('costs');
  assert.deepEqual(spoken.filter((s) => /measur/i.test(s)), ['Starting the measurement…', 'Done: measured up to n = 1,024.']);
  assert.deepEqual(problems, []);
  await close();
});

test('showing the heatmap\'s asked row without guessing says the row\'s weights, as the grid now shows them', async () => {
  const { page, problems, close, tabTo, said } = await open('lesson-1.html');
  await tabTo('matrix', (f) => f.role === 'button' && f.name === 'Show the row of "like"');
  await said('matrix');
  await page.keyboard.press('Enter');
  const spoken = await said('matrix');
  const cells = await page.$eval('#matrix', (el) => Array.from(el.shadowRoot.querySelectorAll('[role="gridcell"]'), (c) => c.getAttribute('aria-label'))
    .filter((l) => l.includes('query like,')).map((l) => l.replace(/.*weight /, '')));
  assert.equal(cells.length, 5);
  assert.ok(cells.every((c) => /^\d/.test(c)), `the row is shown: ${cells.join(', ')}`);
  assert.deepEqual(spoken, [`The weights of "like": [${cells.join(', ')}].`]);
  assert.deepEqual(problems, []);
  await close();
});

test('a lesson\'s landmarks are the page\'s own: the widgets\' scroll boxes are named, focusable groups, not regions', async () => {
  const { page, problems, close } = await open('lesson-2.html');
  // Every scroll box built so far: named, a group, and reachable by Tab so a keyboard can scroll a wide table.
  const boxes = await page.evaluate(() => Array.from(document.querySelectorAll('*')).filter((e) => e.shadowRoot)
    .flatMap((e) => Array.from(e.shadowRoot.querySelectorAll('.al-scroll[aria-label]'), (b) => `${b.getAttribute('role')} ${b.tabIndex} ${b.getAttribute('aria-label')}`)));
  assert.ok(boxes.length >= 3, `scroll boxes: ${boxes.length}`);
  for (const b of boxes) assert.match(b, /^group 0 \S/);
  // What Chromium tells a screen reader once the worked example's table is drawn.
  await page.locator('#worked').scrollIntoViewIfNeeded();
  const cdp = await page.context().newCDPSession(page);
  const roles = async () => (await cdp.send('Accessibility.getFullAXTree')).nodes.filter((n) => !n.ignored && n.role && n.name)
    .map((n) => `${n.role.value}:${n.name.value}`);
  let seen = [];
  for (let i = 0; i < 50 && !seen.includes('group:Numbers'); i++) {
    await page.waitForTimeout(100);
    seen = await roles();
  }
  assert.ok(seen.includes('group:Numbers'), 'the drawn table\'s scroll box is a group named Numbers');
  assert.ok(!seen.includes('region:Numbers'), 'and no landmark');
  assert.deepEqual(problems, []);
  await close();
});
