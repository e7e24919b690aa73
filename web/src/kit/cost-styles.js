'use strict';
// Styles of <cost-lab> (added to the shared widget stylesheet in styles.js).

const COST_CSS = `
.al-cost-measure, .al-cost-calc { margin-bottom: calc(1 * var(--_rem)); }
.al-cost-calc { border-top: 1px solid var(--_line); padding-top: calc(.75 * var(--_rem)); margin-bottom: 0; }
h4 { margin: calc(.75 * var(--_rem)) 0 calc(.25 * var(--_rem)); font-size: calc(.95 * var(--_rem)); }
.al-cost-progress { display: inline-flex; align-items: center; flex: 1 1 calc(8 * var(--_rem)); min-width: calc(8 * var(--_rem)); }
.al-cost-progress progress { width: 100%; height: calc(.8 * var(--_rem)); accent-color: var(--_accent); }
.al-cost-status { min-height: 1.45em; }
.al-cost-note { border-left: 4px solid var(--_focus); padding: calc(.3 * var(--_rem)) calc(.6 * var(--_rem)); background: var(--_panel); }
.al-cost-slopes { font-variant-numeric: tabular-nums; }
.al-cost-refusals { padding-left: calc(1.2 * var(--_rem)); margin: calc(.4 * var(--_rem)) 0; }
.al-cost-refused { color: var(--_bad); white-space: normal !important; }
.al-cost-fields input[type="number"] { width: calc(8.5 * var(--_rem)); }
.al-chart .al-curve-3 { fill: none; stroke: var(--_muted); stroke-width: 2; stroke-dasharray: 2 4; stroke-linecap: round; }
.al-chart .al-legend text { fill: var(--_fg); font-size: 11px; paint-order: stroke; stroke: var(--_bg); stroke-width: 4px; stroke-linejoin: round; }
@container (max-width: 520px) { .al-chart .al-legend text { font-size: 13px; } }
@container (max-width: 440px) { .al-chart .al-legend text { font-size: 14px; } }
.al-cost-traffic td { font-variant-numeric: tabular-nums; }
.al-cost-calc-table th { font-weight: 400; max-width: calc(22 * var(--_rem)); }
.al-cost-calc-table td { white-space: normal; text-align: left; }
@media print { .al-cost-progress, .al-cost-status { display: none; } }
`;

module.exports = { COST_CSS };
