'use strict';
// Styles of the two cost steppers (<online-softmax-stepper>, <kv-cache-stepper>), added to the
// shared widget stylesheet (styles.js). No requires, so styles.js can load it before the widgets.

const ONLINE_SOFTMAX_CSS = `
.al-os-blocks { display: flex; flex-wrap: wrap; gap: calc(.4 * var(--_rem)); padding: 3px; }
.al-os-block { display: flex; gap: 2px; padding: 2px; border: 1px solid var(--_line); border-radius: 6px; }
.al-os-block.al-current { border: 2px solid var(--_focus); background: var(--_panel); }
.al-os-block.al-skipped { border-style: dashed; background: repeating-linear-gradient(135deg, transparent 0 6px, var(--_panel) 6px 9px); }
.al-os-key { display: flex; flex-direction: column; align-items: center; min-width: calc(2.6 * var(--_rem)); font-variant-numeric: tabular-nums; }
.al-os-token { font-size: 11px; color: var(--_muted); max-width: calc(4 * var(--_rem)); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.al-os-score { font-size: calc(.85 * var(--_rem)); }
.al-masked-key .al-os-score { color: var(--_muted); }
.al-steps li.al-skipped { border-style: dashed; }
.al-os-state td.al-after { font-weight: 600; }
.al-os-state td, .al-os-result td { text-align: left; white-space: normal; }
`;

const KV_CACHE_CSS = `
.al-kv-tokens li.al-future { border-style: dashed; }
.al-matrix-table tr.al-new th { color: var(--_fg); font-weight: 700; }
.al-matrix-table tr.al-new td { outline: 2px solid var(--_focus); outline-offset: -1px; }
.al-kv-figures td { min-width: calc(6 * var(--_rem)); }
`;

module.exports = { ONLINE_SOFTMAX_CSS, KV_CACHE_CSS };
