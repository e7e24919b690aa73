'use strict';
// The styles of <mistakes-lab>, added to the shared stylesheet (styles.js): the three heatmaps
// side by side when the widget has room (their cells narrow to 2.4 rem first; two per line in
// a column of about 33 rem, one on a phone), the code listings, and NaN cells, drawn as gaps.

const MISTAKES_CSS = `
.al-mistake-maps { display: flex; flex-wrap: wrap; gap: calc(1 * var(--_rem)); align-items: flex-start; }
.al-mistake-maps figure { margin: 0; min-width: 0; max-width: 100%; flex: 1 1 calc(15.6 * var(--_rem)); }
.al-mistake-maps figure .al-heatmap-wrap { display: block; }
.al-mistake-maps figcaption { font-weight: 600; margin-bottom: calc(.3 * var(--_rem)); }
.al-code { margin: calc(.4 * var(--_rem)) 0; padding: calc(.5 * var(--_rem)) calc(.7 * var(--_rem)); background: var(--_panel); border-radius: 6px;
  font: .85em/1.45 ui-monospace, "SF Mono", Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: normal; width: max-content; min-width: 100%; max-width: 100%; }
.al-code-box { margin: calc(.4 * var(--_rem)) 0; }
.al-code-box .al-code { margin: 0; }
.al-code-label { font-size: .8em; color: var(--_muted); margin: calc(.5 * var(--_rem)) 0 0; }
.al-cell.al-nan { background: var(--_panel); color: var(--_bad); font-weight: 600; border: 1px dashed var(--_bad); }
.al-mistake-note .al-verdict-ok { color: var(--_ok); font-weight: 600; }
.al-mistake-note .al-verdict-bad { color: var(--_bad); font-weight: 600; }
.al-figures { margin: calc(.5 * var(--_rem)) 0; padding-left: calc(1.2 * var(--_rem)); }
`;

module.exports = { MISTAKES_CSS };
