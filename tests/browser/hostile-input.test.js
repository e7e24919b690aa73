'use strict';
// Every number or text box of every widget on every lesson page, found on the page (not
// listed here, so a new widget or box is covered by default), gets a list of hostile values
// typed into it as a person would: select what is there, type, press Enter, press Tab. Each
// box must survive each value: the widget stays drawn with its controls; a value it cannot
// take is refused with a message beside the box (the box's aria-describedby, aria-invalid set)
// while the last good view stays exactly as it was (its text and its state); a value it takes
// stays as typed, not silently changed into another; and nothing logs a console error.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { browserAndServer, watchedPage, settled, textSlips, TAGS } = require('./browser.js');

const root = path.resolve(__dirname, '..', '..');
// The lessons (the element reference shows the same widgets with their defaults).
const PAGES = require('../../scripts/build-site.js').PAGES.filter((p) => !p.reference).map((p) => p.file);

// No box may take these: empty, blank, words, the non-finite numbers, past float64, and a pasted page.
// A box for free text (data-al-text: a sentence for a model to read) must refuse only the
// empty ones and take the rest, up to its length limit.
const REFUSED = ['', 'abc', 'NaN', 'Infinity', '1e400', '9'.repeat(400), `${'word '.repeat(3000)}`];
// Edge values a box may take or refuse, but never break on: past float32, past 2^53, tiny, negative, zero, markup.
const EDGES = ['1e39', '99999999999999999999', '1e-45', '-5', '0', '<img src=x onerror=alert(1)>'];

const run = browserAndServer(test, root);

/**
 * Marks every visible text or number box inside a widget that is not marked yet; returns
 * [{ mark, tag, id, type }]. Widgets inside widgets' shadow roots are searched too.
 */
function findBoxes(page, tags) {
  return page.evaluate((widgetTags) => {
    const found = [];
    const visit = (host) => {
      const rootNode = host.shadowRoot;
      if (!rootNode) return;
      for (const input of rootNode.querySelectorAll('input, textarea[data-al-text]')) {
        if (!['text', 'number', 'search', ''].includes(input.getAttribute('type') || '') || input.dataset.alHostile) continue;
        if (!input.checkVisibility() || input.disabled || input.readOnly) continue;
        input.dataset.alHostile = String(window.__alHostile = (window.__alHostile || 0) + 1);
        found.push({ mark: input.dataset.alHostile, tag: host.localName, id: host.id, type: input.type, free: input.hasAttribute('data-al-text') });
      }
      for (const inner of rootNode.querySelectorAll(widgetTags.join(','))) visit(inner);
    };
    for (const el of document.querySelectorAll(widgetTags.join(','))) visit(el);
    return found;
  }, tags);
}

/**
 * What must not change when a value is refused: the widget's status, state, controls, and the
 * text of its view with the box's own message lines (its aria-describedby) left out.
 */
function snapshot(page, box) {
  return page.evaluate(({ id, mark }) => {
    const host = document.getElementById(id);
    const frame = host.shadowRoot.querySelector('.al-frame');
    const input = host.shadowRoot.querySelector(`[data-al-hostile="${mark}"]`);
    const lines = input ? (input.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean)
      .map((ref) => host.shadowRoot.getElementById(ref)).filter(Boolean) : [];
    const message = lines.map((l) => (l.checkVisibility() ? l.innerText.trim() : '')).filter(Boolean).join(' ');
    // The view's text without the box's own lines (taken out of the layout while it is read).
    const display = lines.map((l) => l.style.display);
    lines.forEach((l) => { l.style.display = 'none'; });
    const text = frame.innerText.replace(/\s+/g, ' ').trim();
    lines.forEach((l, i) => { l.style.display = display[i]; });
    return {
      status: host.status,
      error: Boolean(frame.querySelector('.al-error')),
      // Where a trainer runs (the page, then a worker once one has started) changes on its own,
      // whatever is typed: it is left out of the state a refused value must keep.
      state: JSON.stringify(host.state, (key, v) => (key === 'runner' ? undefined : v)),
      controls: frame.querySelectorAll('button, select, input').length,
      text,
      busy: Boolean(frame.closest('[aria-busy="true"]') || frame.querySelector('[aria-busy="true"]')),
      connected: Boolean(input),
      visible: Boolean(input) && input.checkVisibility(),
      invalid: input ? input.getAttribute('aria-invalid') === 'true' : null,
      value: input ? input.value : null,
      message,
    };
  }, box);
}

/**
 * Types `value` into the box as a person would: empty it, type (as text input: Chromium drops
 * letters typed into a number box either way), Enter, then Tab on. Returns what the box then held.
 */
async function typeInto(page, locator, value) {
  await locator.fill('');
  if (value) await page.keyboard.insertText(value);
  const typed = await locator.inputValue();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  return typed;
}

/** Where two texts part: a few words of each from the first difference. */
function diff(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `"...${a.slice(Math.max(0, i - 20), i + 40)}" became "...${b.slice(Math.max(0, i - 20), i + 40)}"`;
}

/**
 * Waits until the widget is done (no part of it aria-busy, as while a run it started is measuring) and
 * its view and state stop changing, then returns them.
 */
async function quiet(page, box) {
  let last = await snapshot(page, box);
  for (let i = 0; i < 1500; i++) {
    await page.waitForTimeout(20);
    const now = await snapshot(page, box);
    if (!now.busy && now.text === last.text && now.state === last.state && now.status === last.status) return now;
    last = now;
  }
  return last;
}

const same = (a, b) => {
  const norm = (s) => String(s).trim().replace(/\s+/g, ' ');
  if (norm(a) !== '' && norm(b) !== '' && !Number.isNaN(Number(norm(a))) && !Number.isNaN(Number(norm(b)))) return Number(norm(a)) === Number(norm(b));
  return norm(a) === norm(b);
};

for (const pageName of PAGES) {
  test(`${pageName}: every box of every widget survives hostile values, with a message beside it and the last view kept`, { timeout: 600000 }, async () => {
    const { page, problems, close } = await watchedPage(run.browser(), { width: 1280, height: 900 });
    await page.goto(`${run.url()}dist/${pageName}`);
    await settled(page);
    // Sections far out of view are not drawn (content-visibility: auto), and what they hold has no text: draw them all.
    await page.$$eval('*', (els) => els.forEach((el) => { if (getComputedStyle(el).contentVisibility === 'auto') el.style.contentVisibility = 'visible'; }));
    const failures = [];
    const tested = [];
    // Boxes that appear while others are used (a question's answer box) are found in later rounds.
    for (let round = 0; round < 3; round++) {
      const boxes = await findBoxes(page, TAGS);
      if (!boxes.length) break;
      for (const box of boxes) {
        const where = `<${box.tag}#${box.id}> ${box.type} box ${box.mark}`;
        tested.push(where);
        const locator = page.locator(`#${box.id} [data-al-hostile="${box.mark}"]`);
        let last = null;  // the view after the previous value, already quiet
        for (const value of [...REFUSED, ...EDGES]) {
          if (!(await locator.count())) break;  // an accepted answer closed its question
          const must = box.free ? value.trim() === '' : REFUSED.includes(value);
          const shown = JSON.stringify(value.length > 24 ? `${value.slice(0, 20)}...` : value);
          const errorsBefore = problems.length;
          const before = last || await quiet(page, box);
          if (before.status !== 'ready') {
            failures.push(`${where}: not ready before ${shown} (${before.status})`);
            break;
          }
          // A value taken by another box can put this one away (the reader's own sentence has no asked row).
          if (!before.visible) break;
          const typed = await typeInto(page, locator, value);
          const after = await quiet(page, box);
          last = after;
          const fail = (what) => failures.push(`${where}, typed ${shown}: ${what}`);
          if (after.status !== 'ready' || after.error) fail(`the widget broke (status ${after.status})`);
          if (problems.length > errorsBefore) fail(`console: ${problems.slice(errorsBefore).join(' | ')}`);
          if (!after.visible && must) fail('the box went away');
          if (after.connected && after.invalid) {
            if (after.message.length < 12) fail(`refused without a message beside the box ("${after.message}")`);
            if (after.state !== before.state) fail(`refused, but the state changed: ${before.state} -> ${after.state}`);
            if (after.controls !== before.controls) fail(`refused, but the controls changed: ${before.controls} -> ${after.controls}`);
            if (after.text !== before.text) fail(`refused, but the view changed: ${diff(before.text, after.text)}`);
          } else if (after.connected) {
            if (must) fail(`taken without a message: "${after.value.slice(0, 30)}"`);
            else if (box.free && after.message) fail(`taken, but a message stays beside the box: "${after.message}"`);
            else if (!same(after.value, typed)) fail(`taken, but silently changed to "${after.value.slice(0, 30)}"`);
          }
          if (after.message.length > 400) fail(`a message of ${after.message.length} characters: the typed text should not be repeated whole`);
        }
      }
    }
    const slips = await textSlips(page);
    assert.deepEqual(slips, [], 'no widget shows a missing value as text');
    assert.deepEqual(failures, [], `${failures.length} failures over ${tested.length} boxes`);
    if (pageName !== 'index.html' && pageName !== 'lesson-5.html') assert.ok(tested.length > 0, 'the page has boxes to type into');
    await close();
  });
}
