'use strict';
// Styles of <position-lab> (added to the shared widget stylesheet in styles.js).

const POSITION_CSS = `
.al-pl-tokens { display: flex; flex-wrap: wrap; gap: calc(.35 * var(--_rem)); margin: calc(.5 * var(--_rem)) 0; }
.al-pl-token[aria-pressed="true"] { outline: 2px solid var(--_accent); outline-offset: 1px; }
.al-pl-rows td.al-pl-changed { color: var(--_bad); font-weight: 600; }
.al-pl-rows th[scope="row"] { text-align: left; }
@container (max-width: 520px) { .al-pl-rows { font-size: .8em; } }
.al-pl-dial-row { display: flex; flex-wrap: wrap; align-items: center; gap: calc(.5 * var(--_rem)); margin: calc(.35 * var(--_rem)) 0; }
.al-pl-dial-row > p { flex: 1 1 100%; margin: 0; font-weight: 600; }
.al-pl-dial { margin: 0; text-align: center; font-size: calc(.8 * var(--_rem)); }
.al-pl-dial svg { width: calc(4.5 * var(--_rem)); height: calc(4.5 * var(--_rem)); display: block; margin: 0 auto; }
.al-pl-ring { fill: none; stroke: var(--_line); }
.al-pl-q, .al-pl-k { stroke-width: 3; stroke-linecap: round; }
.al-pl-q { stroke: var(--_accent); }
.al-pl-k { stroke: var(--_focus); stroke-dasharray: 4 2; }
.al-pl-key-q { color: var(--_accent); font-weight: 700; }
.al-pl-key-k { color: var(--_focus); font-weight: 700; }
.al-pl-alibi figcaption { white-space: nowrap; }
.al-pl-report[data-same="false"] { color: var(--_bad); }
.al-pl-modes { margin: calc(.5 * var(--_rem)) 0; }
.al-pl-modes > p { margin: 0 0 calc(.25 * var(--_rem)); }
.al-pl-modes label { display: flex; align-items: flex-start; gap: calc(.4 * var(--_rem)); min-height: 28px; margin: calc(.15 * var(--_rem)) 0; cursor: pointer; }
.al-pl-modes input { flex: none; min-height: 0; padding: 0; width: calc(1.1 * var(--_rem)); height: calc(1.1 * var(--_rem)); margin: calc(.2 * var(--_rem)) 0 0; accent-color: var(--_accent); }
/* 32 columns of colour without numbers: narrow enough that all fit beside the labels in a lesson column */
.al-pl-table { --_cell-min: calc(.8 * var(--_rem)); }
.al-pl-table .al-cell { min-width: 0; }
/* the table's 32 position labels in cells 13.5px wide on a phone: two digits still fit */
.al-pl-table .al-heatmap [role="columnheader"] { font-size: 10px; padding: 0; text-overflow: clip; }
`;

module.exports = { POSITION_CSS };
