'use strict';
// <mistakes-lab> on lesson 5 as a learner uses it: predict with the keyboard, then read the
// heatmaps and figures, which must be the engine's; nothing that answers the question is in
// the page (or the accessibility tree) before the answer; a wrong answer says why.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, openSettled, whileDrawn } = require('./browser.js');
const { loadAttentionLab } = require('../../index.js');
const lesson = require('../../web/src/ui/mistake-lab.js');

const url = pathToFileURL(path.resolve(__dirname, '..', '..', 'dist', 'lesson-5.html')).href;

let browser, lab;
test.before(async () => {
  browser = await launch();
  lab = await loadAttentionLab();
});
test.after(() => browser.close());

/** The widget's visible text, its accessibility tree as text, and the cells of each heatmap. */
const read = (p, id) => whileDrawn(p, `#${id}`, () => p.$eval(`#${id}`, (el) => {
  const root = el.shadowRoot;
  const figures = Array.from(root.querySelectorAll('.al-mistake-maps figure')).map((f) => ({
    caption: f.querySelector('figcaption').textContent,
    visible: f.checkVisibility(),
    values: Array.from(f.querySelectorAll('.al-cell')).map((c) => c.dataset.value),
    texts: Array.from(f.querySelectorAll('.al-cell')).map((c) => c.textContent),
  }));
  const text = root.querySelector('.al-frame').innerText;
  return { text, figures, figureLines: Array.from(root.querySelectorAll('.al-figures li')).map((li) => li.textContent) };
}));

async function focusedInWidget(p) {
  return p.evaluate(() => {
    const a = document.activeElement;
    return a && a.localName === 'mistakes-lab' && a.shadowRoot.activeElement ? a.shadowRoot.activeElement.localName : a.localName;
  });
}

test('keyboard only: predict which weights a late mask changes, then see the engine\'s weights, difference and figures', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 1280, height: 900 });
  const id = 'mistakes-masks';
  const sc = lesson.scenario('mask-after-softmax', lab.examples().timeFlies);
  const r = lab.mistake('mask-after-softmax', sc.spec);
  let seen = await read(p, id);
  assert.deepEqual(seen.figures.map((f) => f.visible), [true, false, false], 'only the correct heatmap before answering');
  assert.ok(!seen.text.includes('What you would see'), 'no symptom or figure before answering');
  const tree = await p.locator(`#${id}`).ariaSnapshot();
  assert.ok(!tree.includes('With the mistake') && !tree.includes('Difference'), 'the answer is not in the accessibility tree either');
  const code = lesson.LESSONS['mask-after-softmax'].code;
  assert.ok(seen.text.includes(code.buggy), 'the buggy line is the question');
  assert.ok(!seen.text.includes(code.fixed) && !tree.includes('Fixed'), 'the fixed line waits for the answer');
  assert.deepEqual(seen.figures[0].values.map(Number), Array.from(r.correct.weights.data), 'the correct heatmap is the engine\'s');

  // Tab from the mistake picker to the right choice, then Enter.
  await p.locator(`#${id}`).locator('select').first().focus();
  const right = lesson.LESSONS['mask-after-softmax'].choices.find((c) => c.why === '').label;
  for (let i = 0; i < 10; i++) {
    await p.keyboard.press('Tab');
    const label = await p.evaluate(() => document.activeElement.shadowRoot && document.activeElement.shadowRoot.activeElement
      && document.activeElement.shadowRoot.activeElement.textContent);
    if (label === right) break;
  }
  await p.keyboard.press('Enter');
  seen = await read(p, id);
  assert.match(seen.text, /Right\. \d+ of 25 weights change/);
  assert.notEqual(await focusedInWidget(p), 'body', 'focus stays in the widget');
  assert.deepEqual(seen.figures.map((f) => f.visible), [true, true, true]);
  assert.deepEqual(seen.figures[1].values.map(Number), Array.from(r.mistaken.weights.data), 'mistaken weights are the engine\'s');
  assert.deepEqual(seen.figures[2].values.map(Number), Array.from(r.difference.weights.data), 'differences are the engine\'s');
  assert.deepEqual(seen.figureLines, r.figures.map(lesson.figureLine));
  assert.ok(seen.text.includes(lab.MISTAKES.find((m) => m.name === 'mask-after-softmax').fix));
  assert.ok(seen.text.replace(/\s+/g, ' ').includes(`Fixed: ${code.fixed}`), 'the fixed line once answered');
  assert.equal(await p.$eval(`#${id}`, (el) => el.state.revealed), true);
  assert.deepEqual(problems, []);
  await close();
});

test('a wrong answer gets a hint and another try, a second its reason and the answer; the choice is kept per mistake, and the pick is in the link', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 1280, height: 900 });
  const id = 'mistakes-masks';
  const el = p.locator(`#${id}`);
  await el.locator('select').first().selectOption('no-causal-mask');
  const wrong = lesson.LESSONS['no-causal-mask'].choices.find((c) => c.pattern === 'maskedCells');
  await el.getByRole('button', { name: wrong.label }).click();
  let seen = await read(p, id);
  assert.ok(seen.text.includes(`Not yet. ${wrong.why} Try once more.`), seen.text.slice(0, 400));
  assert.ok(!seen.text.includes('The engine\'s answer') && !seen.figures[1].visible, 'a first miss shows neither the answer nor the mistaken weights');
  await el.getByRole('button', { name: wrong.label }).click();
  seen = await read(p, id);
  assert.ok(seen.text.includes(`Not quite. ${wrong.why}`), seen.text.slice(0, 400));
  assert.ok(seen.text.includes('The engine\'s answer: every row except the last'));
  const r = lab.mistake('no-causal-mask', lesson.scenario('no-causal-mask', lab.examples().timeFlies).spec);
  assert.deepEqual(seen.figures[2].values.map(Number), Array.from(r.difference.weights.data));
  // Back to the first mistake: its question is still open.
  await el.locator('select').first().selectOption('mask-after-softmax');
  assert.equal(await el.getByRole('button', { name: 'Show me without predicting' }).count(), 1);
  await p.waitForFunction(() => new URLSearchParams(window.location.search).get('mistakes-masks.mistake') === 'mask-after-softmax');
  assert.deepEqual(problems, []);
  await close();
});

test('at 390 px the float16 mistake shows NaN in exactly the cells the engine counts, without sideways scrolling', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 390, height: 800 });
  const id = 'mistakes-half';
  await p.locator(`#${id}`).getByRole('button', { name: 'Show me without predicting' }).click();
  const seen = await read(p, id);
  const r = lab.mistake('fp16-mask-fill', lesson.scenario('fp16-mask-fill', lab.examples().timeFlies).spec);
  assert.equal(seen.figures[1].texts.filter((t) => t === 'NaN').length, r.figure.value);
  assert.equal(seen.figures[0].texts.filter((t) => t === 'NaN').length, 0, 'never in the correct weights');
  assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), 390);
  assert.deepEqual(problems, []);
  await close();
});

test('keys not transposed: the full sentence\'s error is shown, and the square case runs', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 1280, height: 900 });
  const seen = await read(p, 'mistakes-scale');
  const loud = lab.mistake('keys-not-transposed', lesson.scenario('keys-not-transposed', lab.examples().timeFlies, lesson.squareExample(lab)).loud.spec);
  assert.ok(seen.text.includes(loud.mistaken.error), seen.text.slice(0, 300));
  assert.equal(seen.figures[0].values.length, 16, 'four tokens, d_k = 4');
  assert.deepEqual(problems, []);
  await close();
});

test('the difference map turns to its dark-centred colours when the widget is dark, and back', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 1280, height: 900 });
  const { divergingScale } = require('../../web/src/ui/diverging.js');
  const el = p.locator('#mistakes-masks');
  await el.getByRole('button', { name: 'Show me without predicting' }).click();
  // The last row of a late mask is unchanged: its difference cells are 0, the scale's centre.
  const centre = () => el.evaluate((e) => {
    const cells = e.shadowRoot.querySelectorAll('.al-mistake-maps figure')[2].querySelectorAll('.al-cell');
    return cells[cells.length - 1].style.backgroundColor;  // the inline colour (the computed one may be mid-transition)
  });
  const light = divergingScale(1).color(0), dark = divergingScale(1, { dark: true }).color(0);
  assert.equal(await centre(), light);
  await el.evaluate((e) => e.setAttribute('theme', 'dark'));
  assert.equal(await centre(), dark);
  // An exported file is read outside the page: it keeps the light scale's white centre.
  await el.locator('.al-mistake-maps figure >> nth=2').locator('.al-export-button').click();
  const [download] = await Promise.all([p.waitForEvent('download'), el.getByRole('menuitem', { name: 'SVG image' }).click()]);
  const svg = fs.readFileSync(await download.path(), 'utf8');
  const hexOf = (rgb) => `#${rgb.match(/\d+/g).map((x) => Number(x).toString(16).padStart(2, '0')).join('')}`;
  assert.ok(svg.includes(hexOf(light)) || svg.includes(light), 'the exported difference map has the light centre');
  assert.ok(!svg.includes(hexOf(dark)) && !svg.includes(dark), 'and none of the dark one');
  await el.evaluate((e) => e.setAttribute('theme', 'light'));
  assert.equal(await centre(), light);
  // Following the page (no theme attribute), the reader's system switching to dark and back.
  await el.evaluate((e) => e.removeAttribute('theme'));
  await p.emulateMedia({ colorScheme: 'dark' });
  await p.waitForFunction(() => document.querySelector('#mistakes-masks').shadowRoot.querySelector('.al-frame.al-dark'));
  assert.equal(await centre(), dark, 'the system switched to dark');
  await p.emulateMedia({ colorScheme: 'light' });
  await p.waitForFunction(() => !document.querySelector('#mistakes-masks').shadowRoot.querySelector('.al-frame.al-dark'));
  assert.equal(await centre(), light, 'the system switched back to light');
  assert.deepEqual(problems, []);
  await close();
});

test('the padding mistake\'s pad count changes the engine\'s figure and is kept in the link; other mistakes hide it', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 390, height: 800 });
  const el = p.locator('#mistakes-axis');
  const padSelect = el.locator('select').nth(1);
  assert.equal(await padSelect.isVisible(), false, 'only the padding mistake has a pad count');
  await el.locator('select').first().selectOption('no-padding-mask');
  assert.equal(await padSelect.inputValue(), String(lesson.DEFAULT_PADS));
  await el.getByRole('button', { name: 'every cell', exact: true }).click();
  for (const pads of lesson.PAD_COUNTS) {
    await padSelect.selectOption(String(pads));
    const sc = lesson.scenario('no-padding-mask', lab.examples().timeFlies, null, { pads });
    const r = lab.mistake('no-padding-mask', sc.spec);
    const seen = await read(p, 'mistakes-axis');
    const cells = (3 + pads) ** 2;
    assert.ok(seen.text.includes(`Right. ${cells} of ${cells} weights change`), `${pads} pads: the verdict is judged on the cells shown`);
    assert.deepEqual(seen.figureLines, r.figures.map(lesson.figureLine), `${pads} pads`);
    assert.deepEqual(seen.figures[2].values.map(Number), Array.from(r.difference.weights.data), `${pads} pads: the difference map is the engine's`);
  }
  await p.waitForFunction(() => new URLSearchParams(window.location.search).get('mistakes-axis.pads') === '4');
  assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), 390, 'seven columns fit at 390 px');
  await p.reload();
  await p.waitForFunction(() => document.querySelector('#mistakes-axis').state && document.querySelector('#mistakes-axis').state.pads === 4);
  assert.equal(await padSelect.inputValue(), '4');
  assert.deepEqual(problems, []);
  await close();
});

test('the scaling mistakes\' key width switches to seeded vectors, and the figures are the engine\'s at each d_k', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 1280, height: 900 });
  const el = p.locator('#mistakes-scale');
  const dkSelect = el.locator('select').nth(2);
  assert.equal(await dkSelect.isVisible(), false, 'only the scaling mistakes have a key width');
  await el.locator('select').first().selectOption('no-scaling');
  assert.equal(await dkSelect.inputValue(), String(lesson.DEFAULT_DK));
  await el.getByRole('button', { name: 'every cell: each row gets sharper' }).click();
  const example = lab.examples().timeFlies;
  for (const dk of lesson.DK_CHOICES) {
    await dkSelect.selectOption(String(dk));
    const wide = dk === lesson.DEFAULT_DK ? null : lesson.wideExample(lab, example.tokens, dk);
    const r = lab.mistake('no-scaling', lesson.scenario('no-scaling', example, null, { wide }).spec);
    const seen = await read(p, 'mistakes-scale');
    assert.deepEqual(seen.figureLines, r.figures.map(lesson.figureLine), `d_k = ${dk}`);
    assert.deepEqual(seen.figures[1].values.map(Number), Array.from(r.mistaken.weights.data), `d_k = ${dk}: the mistaken map is the engine's`);
    assert.ok(seen.text.includes('Right. 25 of 25 weights change'), `d_k = ${dk}`);
  }
  await p.waitForFunction(() => new URLSearchParams(window.location.search).get('mistakes-scale.dk') === '256');
  assert.deepEqual(problems, []);
  await close();
});

test('a heatmap keys the masked colour only when it has masked cells: the correct weights of a mask mistake, no picture of the axis mistake', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 1280, height: 900 });
  const keys = async (id) => {
    await p.locator(`#${id}`).getByRole('button', { name: 'Show me without predicting' }).click();
    return whileDrawn(p, `#${id}`, () => p.$eval(`#${id}`, (el) => Array.from(el.shadowRoot.querySelectorAll('.al-mistake-maps figure'), (f) => ({
      caption: f.querySelector('figcaption').textContent,
      keys: Array.from(f.querySelectorAll('.al-legend-mask')).filter((k) => k.getClientRects().length > 0).length,
      key: (Array.from(f.querySelectorAll('.al-legend > span')).find((k) => k.querySelector('.al-legend-mask') && k.getClientRects().length > 0) || { textContent: '' }).textContent.trim(),
      masked: f.querySelectorAll('.al-masked').length,
      cells: Array.from(f.querySelectorAll('.al-cell'), (c) => (c.classList.contains('al-masked') ? 'masked' : c.textContent)),
      top: Math.round(f.getBoundingClientRect().top),
    }))));
  };
  const masks = await keys('mistakes-masks');
  assert.equal(masks.length, 3);
  assert.ok(masks[0].masked > 0, 'the correct weights draw the causal mask');
  // Masked cells are drawn the same way in all three pictures (hatched, no "0.00"), and each
  // key says what the hatch is in its picture.
  assert.deepEqual(masks.map((f) => f.masked), [10, 10, 10], JSON.stringify(masks));
  const hatched = (f) => f.cells.map((c) => c === 'masked');
  assert.deepEqual(hatched(masks[1]), hatched(masks[0]));
  assert.deepEqual(hatched(masks[2]), hatched(masks[0]));
  assert.deepEqual(masks.map((f) => f.key), ['masked (\u2212\u221e before softmax)', 'masked (set to 0 after the softmax)', 'masked in both: no difference']);
  // At 1280 px the lesson gives the lab the page's width: Correct, With the mistake and Difference in one row.
  assert.equal(new Set(masks.map((f) => f.top)).size, 1, `the three pictures side by side: tops ${masks.map((f) => f.top)}`);
  const axis = await keys('mistakes-axis');
  assert.deepEqual(axis.map((f) => [f.masked, f.keys]), [[0, 0], [0, 0], [0, 0]], JSON.stringify(axis));
  assert.deepEqual(problems, []);
  await close();
});

test('forgetting a mask shows its cells unmasked in the mistaken picture, and at 390 px the three pictures stack without sideways scrolling', async () => {
  const { page: p, problems, close } = await openSettled(browser, url, { width: 390, height: 844 });
  await p.locator('#mistakes-masks select').first().selectOption('no-causal-mask');
  await p.locator('#mistakes-masks').getByRole('button', { name: 'Show me without predicting' }).click();
  const maps = await whileDrawn(p, '#mistakes-masks', () => p.$eval('#mistakes-masks', (el) => Array.from(el.shadowRoot.querySelectorAll('.al-mistake-maps figure'), (f) => ({
    masked: f.querySelectorAll('.al-masked').length, box: f.getBoundingClientRect().toJSON(),
  }))));
  assert.deepEqual(maps.map((f) => f.masked), [10, 0, 0], 'the mistaken computation has no causal mask: its future cells show the weight they leak');
  for (let i = 1; i < maps.length; i++) assert.ok(maps[i].box.top >= maps[i - 1].box.bottom, 'one picture under the other');
  assert.ok(maps.every((f) => f.box.right <= 390), 'none sticks out');
  assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), 390);
  assert.deepEqual(problems, []);
  await close();
});

test('on phones 360 and 390 px wide the buggy and fixed code wraps between words only, never inside a name or a comment\'s word', async () => {
  for (const width of [360, 390]) {
    const { page: p, problems, close } = await openSettled(browser, url, { width, height: 844 });
    const names = await p.$eval('#mistakes-axis', (el) => Array.from(el.shadowRoot.querySelector('select').options, (o) => o.value));
    assert.equal(names.length, 8);
    for (const name of names) {
      await p.locator('#mistakes-axis select').first().selectOption(name);
      const skip = p.locator('#mistakes-axis').getByRole('button', { name: 'Show me without predicting' });
      if (await skip.count()) await skip.click();
      const found = await whileDrawn(p, '#mistakes-axis', () => p.$eval('#mistakes-axis', (el) => {
        const out = [];
        const codes = el.shadowRoot.querySelectorAll('.al-code');
        for (const pre of codes) {
          const node = pre.firstChild, t = node.data;
          let prevTop = null;
          for (let i = 0; i < t.length; i++) {
            if (t[i] === '\n') { prevTop = null; continue; }
            const r = document.createRange();
            r.setStart(node, i);
            r.setEnd(node, i + 1);
            const top = r.getClientRects()[0].top;
            // A new line that starts right after a character that is not a space: a break inside a word.
            if (prevTop !== null && top > prevTop + 2 && /\S/.test(t[i - 1])) out.push(`${t.slice(Math.max(0, i - 12), i)}|${t.slice(i, i + 12)}`);
            prevTop = top;
          }
        }
        return { codes: codes.length, out };
      }));
      assert.equal(found.codes, 2, `${name}: the buggy and the fixed code`);
      assert.deepEqual(found.out, [], `${width} px, ${name}: breaks inside a word`);
    }
    assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), width, 'nothing sticks out sideways');
    assert.deepEqual(problems, []);
    await close();
  }
});
