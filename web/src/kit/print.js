'use strict';
// Print (and "save as PDF") rules for every widget's shadow root: light colours whatever
// the reader's scheme or the widget's theme, heatmap colours kept, numbers in heatmap
// cells where they fit, controls that mean nothing on paper hidden. Answers to the
// predict-first questions are never printed beside their question: while the page prints,
// each question says which numbered answer is its own, and the answers are listed in an
// "Answers" section at the end of the page, as in a textbook. Until then no answer is in
// the page at all: each is computed from the engine when printing starts.

const { h } = require('./dom.js');

const PRINT_CSS = `
.al-print-answer { display: none; }
@media print {
  :host { break-inside: avoid; }
  .al-frame, .al-frame.al-dark {
    color-scheme: light; --_fg: #000000; --_muted: #333338; --_bg: #ffffff; --_panel: #f1f1f4; --_line: #9a9aa6;
    -webkit-print-color-adjust: exact; print-color-adjust: exact;
  }
  .al-export, .al-export-fallback { display: none !important; }
  button:not([aria-pressed]):not(.al-cell-button) { display: none !important; }
  .al-predict .al-group, .al-predict .al-muted, .al-group:has(> .al-print-answer) > :not(.al-print-answer) { display: none !important; }
  .al-print-answer:not(:empty) { display: block; font-style: italic; }
  .al-heatmap.al-fits-numbers:not(.al-numbers) .al-cell:not(.al-masked)::after { content: attr(data-text); }
  .al-cell, .al-bar { transition: none !important; }
}
`;

// Each print slot beside a question -> () => { question, answer }, asked only when printing.
const providers = new WeakMap();
const SECTION_CLASS = 'attention-lab-answers';

/**
 * A print-only line beside a question: empty (and display: none) on screen; while printing it
 * points to the question's answer in the page's "Answers" section.
 * @param provider () -> { question, answer }: the question as asked and the engine's answer
 */
function answerSlot(provider, tag = 'p') {
  const slot = h(tag, { class: 'al-print-answer' });
  providers.set(slot, provider);
  return slot;
}

/** Whether a slot's question is on the page (not in a hidden part of its widget). */
function asked(slot) {
  const box = slot.parentElement;
  return Boolean(box) && (typeof box.checkVisibility !== 'function' || box.checkVisibility());
}

/**
 * Fills the slots of `widgets` (connected widget elements) and adds the "Answers" section at the
 * end of the page's <main> (or <body>). Returns the section, or null when no widget asks anything.
 */
function printAnswers(doc, widgets) {
  clearAnswers(doc, widgets);
  const ordered = Array.from(widgets).filter((el) => el.shadowRoot)
    .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  const items = [];
  for (const el of ordered) {
    for (const slot of el.shadowRoot.querySelectorAll('.al-print-answer')) {
      if (!providers.has(slot) || !asked(slot)) continue;
      let qa;
      try {
        qa = providers.get(slot)();
      } catch (_) {
        continue;  // a widget that cannot answer now (still measuring) prints no answer
      }
      items.push(qa);
      slot.textContent = `Answer ${items.length} is in "Answers" at the end of the page.`;
    }
  }
  // At the end of the page's main content where it has one (its width and margins), else of <body>.
  const target = doc.querySelector('main') || doc.body;
  if (!items.length || !target) return null;
  const section = h('section', { class: SECTION_CLASS }, h('h2', {}, 'Answers'),
    h('ol', {}, items.map(({ question, answer }) => h('li', {}, h('p', {}, h('em', {}, question)), h('p', {}, answer)))));
  target.append(section);
  return section;
}

/** Takes the "Answers" section away and empties the slots again (after printing). */
function clearAnswers(doc, widgets) {
  for (const section of doc.querySelectorAll(`section.${SECTION_CLASS}`)) section.remove();
  for (const el of widgets) {
    if (el.shadowRoot) for (const slot of el.shadowRoot.querySelectorAll('.al-print-answer')) slot.textContent = '';
  }
}

/** Listens for the page being printed: `widgets()` gives the connected widgets. */
function watchPrinting(win, widgets) {
  win.addEventListener('beforeprint', () => printAnswers(win.document, widgets()));
  win.addEventListener('afterprint', () => clearAnswers(win.document, widgets()));
}

module.exports = { PRINT_CSS, answerSlot, printAnswers, clearAnswers, watchPrinting };
