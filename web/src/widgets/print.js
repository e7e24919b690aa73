'use strict';
// Print (and "save as PDF") rules for every widget's shadow root: light colours whatever
// the reader's scheme or the widget's theme, heatmap colours kept, numbers in heatmap
// cells where they fit, controls that mean nothing on paper hidden, and each prediction's
// answer shown as "answer: ...".
// The answer element stays display: none on screen, out of the accessibility tree until
// the learner has answered.

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
  .al-print-answer { display: block; font-weight: 600; }
  .al-heatmap.al-fits-numbers:not(.al-numbers) .al-cell:not(.al-masked)::after { content: attr(data-text); }
  .al-cell, .al-bar { transition: none !important; }
}
`;

module.exports = { PRINT_CSS };
