'use strict';
// Styles of <model-attention> (added to the shared widget stylesheet in styles.js).

const MODEL_ATTENTION_CSS = `
.al-tabs { display: flex; flex-wrap: wrap; gap: calc(.25 * var(--_rem)); border-bottom: 1px solid var(--_line); margin: calc(.5 * var(--_rem)) 0 calc(.75 * var(--_rem)); }
.al-tabs [role="tab"] { border-radius: 6px 6px 0 0; border-bottom-color: transparent; background: transparent; margin-bottom: -1px; }
.al-tabs [role="tab"][aria-selected="true"] { background: var(--_panel); border-color: var(--_line); border-bottom-color: var(--_panel); font-weight: 600; box-shadow: inset 0 3px 0 var(--_accent); }
.al-model-input { display: grid; grid-template-columns: minmax(0, 1fr); gap: calc(.35 * var(--_rem)); margin-bottom: calc(.5 * var(--_rem)); }
.al-model-label { font-weight: 600; }
.al-model-text { width: 100%; box-sizing: border-box; min-height: 44px; font: inherit; padding: calc(.35 * var(--_rem)) calc(.5 * var(--_rem)); resize: vertical; }
.al-model-input .al-field-message:empty, .al-model-note:empty { display: none; }
.al-model-keys { display: block; font-weight: 400; font-size: calc(.85 * var(--_rem)); }
.al-model-note { margin: 0; font-size: calc(.85 * var(--_rem)); }
.al-model-guess-title { margin: calc(.25 * var(--_rem)) 0 0; }
.al-model-guesses, .al-ko-guesses { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: max-content minmax(calc(3 * var(--_rem)), calc(12 * var(--_rem))) max-content; gap: calc(.15 * var(--_rem)) calc(.5 * var(--_rem)); align-items: center; }
:is(.al-model-guesses, .al-ko-guesses) li { display: contents; }
.al-model-guess-token { font-family: var(--_mono, ui-monospace, monospace); white-space: pre; }
.al-model-guess-bar { display: block; height: calc(.7 * var(--_rem)); background: var(--_panel); border: 1px solid var(--_line); border-radius: 2px; overflow: hidden; }
.al-model-guess-bar > span { display: block; height: 100%; background: var(--_accent); }
.al-model-guess-p { font-variant-numeric: tabular-nums; text-align: right; }
.al-ko-modes label { display: inline-flex; align-items: center; gap: calc(.3 * var(--_rem)); min-height: 24px; }
.al-ko-grid { display: grid; gap: calc(.3 * var(--_rem)); margin: calc(.5 * var(--_rem)) 0; }
.al-ko-layer { display: flex; flex-wrap: wrap; align-items: center; gap: calc(.3 * var(--_rem)); }
.al-ko-layer-name { min-width: calc(6 * var(--_rem)); color: var(--_muted); }
.al-ko-layer button { min-width: calc(2.6 * var(--_rem)); }
.al-ko-loss caption { text-align: left; }
.al-ko-limit:empty, .al-ko-status:empty { display: none; }
.al-ko-limit { border-left: 3px solid var(--_focus); padding-left: calc(.5 * var(--_rem)); }
.al-ko-loss td { text-align: right; font-variant-numeric: tabular-nums; }
.al-ko-loss th[scope="row"] { font-weight: 400; text-align: left; }
.al-ko-asking .al-model-guess-box { display: none !important; }
.al-asking .al-tabs, .al-asking [role="tabpanel"], .al-asking .al-model-guess-box { display: none !important; }
.al-model-scroll { padding: 3px; }
/* The thumbnails share the width: from 20 px (twelve heads fit a phone) up to --al-thumb rem each (model-view.js). */
.al-model-grid { display: grid; grid-template-columns: max-content repeat(var(--al-heads), minmax(20px, calc(var(--al-thumb, 4) * var(--_rem)))); column-gap: 0; row-gap: 3px;
  font-size: calc(.75 * var(--_rem)); color: var(--_muted); }
.al-model-grid [role="row"] { display: contents; }
.al-model-grid [role="columnheader"] { text-align: center; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding-right: 6%; }
.al-model-grid [role="rowheader"] { grid-column: 1; text-align: right; align-self: center; padding-right: calc(.3 * var(--_rem)); white-space: nowrap; max-width: calc(6 * var(--_rem)); overflow: hidden; text-overflow: ellipsis; }
.al-layer-picture { grid-column: 2 / -1; display: block; width: 100%; height: auto; aspect-ratio: var(--al-aspect); }
.al-crisp .al-layer-picture { image-rendering: pixelated; }
.al-thumb { position: relative; z-index: 1; cursor: pointer; border-radius: 2px; }
.al-thumb.al-open { outline: 3px solid var(--_accent); outline-offset: 0; }
.al-thumb:focus-visible { outline: 3px solid var(--_focus); outline-offset: 0; z-index: 2; }
.al-open-head { margin-top: calc(.75 * var(--_rem)); border-top: 1px solid var(--_line); padding-top: calc(.5 * var(--_rem)); --_cell-min: calc(.8 * var(--_rem)); }
.al-open-head .al-cell { min-width: 0; }
.al-open-title { margin-bottom: 0; }
/* The open head has no numbers in its cells: they narrow to a label's line (--_cell-min) to fit a phone.
   Its key labels run upwards, whole: across, a narrow column cut " part" and " person" to the same "p\u2026". */
.al-open-head .al-heatmap [role="columnheader"]:not(.al-axis) { writing-mode: vertical-rl; transform: rotate(180deg); white-space: pre; text-overflow: clip;
  overflow: visible; align-self: end; justify-self: center; text-align: left; padding: calc(.2 * var(--_rem)) 0; line-height: 1.1; }
.al-head-picks { display: flex; flex-wrap: wrap; gap: calc(.2 * var(--_rem)) calc(.8 * var(--_rem)); margin-bottom: calc(.5 * var(--_rem)); }
.al-head-picks label { display: inline-flex; align-items: center; gap: calc(.3 * var(--_rem)); min-height: 24px; }
.al-swatch { display: inline-block; width: calc(.8 * var(--_rem)); height: calc(.8 * var(--_rem)); border-radius: 2px; }
.al-head-title { position: sticky; top: 0; z-index: 1; background: var(--_bg); font-size: calc(.8 * var(--_rem)); font-weight: 600; padding: 0 calc(.4 * var(--_rem)) calc(.2 * var(--_rem)); }
.al-head-scroll { max-height: calc(30 * var(--_rem)); overflow-y: auto; }
.al-head-lines { display: grid; grid-template-columns: minmax(0, max-content) minmax(calc(4 * var(--_rem)), calc(16 * var(--_rem))) minmax(0, max-content); justify-content: start; }
.al-lines { width: 100%; display: block; }
.al-token-column { display: flex; flex-direction: column; min-width: 0; }
.al-token-left { align-items: flex-end; text-align: right; }
.al-token-right { align-items: flex-start; }
.al-token { height: var(--al-row, 24px); min-height: 0; padding: 0 calc(.4 * var(--_rem)); border: 0; border-radius: 4px; background: transparent; font-size: calc(.85 * var(--_rem));
  max-width: calc(9 * var(--_rem)); overflow: hidden; text-overflow: ellipsis; white-space: pre; }
.al-token:hover, .al-token.al-token-current { background: var(--_hl); color: var(--_hl-fg); }
.al-token.al-special { font-style: italic; color: var(--_muted); }
.al-token[aria-pressed="true"] { outline: 2px solid var(--_accent); outline-offset: -2px; }
.al-summary-table th button.al-sort { border: 0; background: transparent; padding: 0 calc(.2 * var(--_rem)); font-weight: 600; min-height: 24px; text-align: left; }
.al-summary-table td { text-align: right; }
/* nine columns in a 1280 px lesson's column (568 px): a little less padding than other tables */
.al-summary-table th, .al-summary-table td { padding-left: calc(.3 * var(--_rem)); padding-right: calc(.3 * var(--_rem)); }
.al-summary-table th[scope="row"] { font-weight: 400; }
.al-summary-table button.al-open-link { white-space: nowrap;  border: 0; background: transparent; color: var(--_accent); text-decoration: underline; padding: 0; min-height: 24px; text-align: left; }
@container (max-width: 520px) {
  .al-tabs [role="tab"] { padding: calc(.3 * var(--_rem)) calc(.45 * var(--_rem)); }
  .al-summary-table.al-stack td { text-align: left; }
  .al-head-lines { grid-template-columns: minmax(0, max-content) minmax(calc(3 * var(--_rem)), 1fr) minmax(0, max-content); }
  .al-token { max-width: calc(6.5 * var(--_rem)); }
}
@media (forced-colors: active) {
  .al-layer-picture, .al-swatch, .al-lines { forced-color-adjust: none; }
  .al-tabs [role="tab"][aria-selected="true"] { forced-color-adjust: none; background: Highlight; color: HighlightText; }
}
`;

module.exports = { MODEL_ATTENTION_CSS };
