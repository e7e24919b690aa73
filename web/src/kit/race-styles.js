'use strict';
// Styles of <position-race> (added to the shared widget stylesheet in styles.js): a colour and
// a dash pattern per position scheme, so the five lines part without colour too.

const RACE_CSS = `
.al-chart [class^="al-race-"] { fill: none; stroke-width: 2; }
.al-race-0 { stroke: var(--_accent); }
.al-race-1 { stroke: light-dark(#c2410c, #fb923c); stroke-dasharray: 7 3; }
.al-race-2 { stroke: light-dark(#1d6b35, #6fd391); stroke-dasharray: 2 3; }
.al-race-3 { stroke: light-dark(#8a3ca3, #d7a4f0); stroke-dasharray: 10 3 2 3; }
.al-race-4 { stroke: var(--_muted); stroke-dasharray: 4 5; }
.al-race-table td { white-space: normal; }
/* on a phone the results' five columns fit without scrolling (the cells are short: "192", "none", "refused", "0.37") */
@container (max-width: 520px) {
  .al-race-table { font-size: .8em; }
  .al-race-table th, .al-race-table td { padding: calc(.15 * var(--_rem)) calc(.12 * var(--_rem)); }
}
.al-race-table td.al-race-works { color: var(--_ok); font-weight: 600; }
.al-race-predict select { max-width: 100%; }
.al-race-tick { display: inline-flex; align-items: center; justify-content: center; min-width: 28px; min-height: 28px; cursor: pointer; }
.al-race-refusal { border-left: 4px solid var(--_line); padding: calc(.4 * var(--_rem)) calc(.75 * var(--_rem)); background: var(--_panel); overflow-wrap: anywhere; }
@media print { .al-race-predict .al-skip { display: none; } }
`;

module.exports = { RACE_CSS };
