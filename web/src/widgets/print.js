'use strict';
// Print (and "save as PDF") rules for every widget: light colours whatever the reader's
// scheme, heatmap colours kept, numbers in heatmap cells where they fit, controls that
// mean nothing on paper hidden, and each prediction's answer shown as "answer: ...".
// The answer element stays display: none on screen, out of the accessibility tree until
// the learner has answered.

const PRINT_CSS = `
.al-print-answer { display: none; }
@media print {
  .al-widget {
    --al-fg: #000000; --al-muted: #333338; --al-bg: #ffffff; --al-panel: #f1f1f4; --al-line: #9a9aa6;
    --al-accent: #1f5fbf; --al-accent-fg: #ffffff; --al-hl: #ffe58a; --al-hl-fg: #000000; --al-ok: #1d6b35; --al-bad: #a3242a;
    --al-mask: #9a9aa6; --al-focus: #c2410c;
    -webkit-print-color-adjust: exact; print-color-adjust: exact;
    break-inside: avoid; page-break-inside: avoid;
  }
  .al-widget .al-export, .al-widget .al-export-fallback { display: none !important; }
  .al-widget button:not([aria-pressed]):not(.al-cell-button) { display: none !important; }
  .al-predict .al-group, .al-predict .al-muted { display: none !important; }
  .al-print-answer { display: block; font-weight: 600; }
  .al-heatmap.al-fits-numbers:not(.al-numbers) .al-cell:not(.al-masked)::after { content: attr(data-text); }
  .al-cell, .al-bar { transition: none !important; }
}
`;

module.exports = { PRINT_CSS };
