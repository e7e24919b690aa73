'use strict';
// Styles of <attention-trainer> (added to the shared widget stylesheet in styles.js).

const TRAINER_CSS = `
.al-trainer-predict fieldset, .al-ko-predict fieldset { border: 0; padding: 0; margin: 0 0 calc(.5 * var(--_rem)); }
.al-trainer-predict legend, .al-ko-predict legend { padding: 0; margin-bottom: calc(.25 * var(--_rem)); }
.al-trainer-predict .al-check, .al-ko-predict .al-check { display: flex; align-items: center; gap: calc(.4 * var(--_rem)); min-height: calc(1.9 * var(--_rem)); }
.al-trainer-settings label { white-space: nowrap; }
.al-trainer-seed { display: inline-flex; flex-wrap: wrap; align-items: center; gap: calc(.4 * var(--_rem)); }
.al-input-message { color: var(--_bad); flex-basis: 100%; }
.al-input-message:empty { display: none; }
.al-trainer-status { font-variant-numeric: tabular-nums; min-height: 1.45em; }
.al-trainer-alert { border-left: 4px solid var(--_bad); padding: calc(.5 * var(--_rem)) calc(.75 * var(--_rem)); background: var(--_panel); margin: calc(.5 * var(--_rem)) 0; }
.al-trainer-alert button { margin-left: calc(.25 * var(--_rem)); }
.al-trainer-charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, calc(20 * var(--_rem))), 1fr)); gap: calc(.75 * var(--_rem)); }
.al-trainer-chart .al-chart { max-width: none; }
.al-chart .al-guide { stroke: var(--_muted); stroke-dasharray: 4 4; }
.al-chart .al-mark { stroke: var(--_focus); stroke-dasharray: 3 3; }
.al-chart text.al-mark-label { fill: var(--_focus); }
.al-trainer-example { overflow-wrap: anywhere; font-size: calc(.9 * var(--_rem)); color: var(--_muted); }
.al-trainer-heads { display: flex; flex-direction: column; gap: calc(.5 * var(--_rem)); }
.al-trainer-layer { display: flex; flex-wrap: wrap; gap: calc(.5 * var(--_rem)); align-items: flex-start; }
.al-trainer-layer-name { flex-basis: 100%; margin: 0; font-weight: 600; }
.al-trainer-head { margin: 0; padding: calc(.4 * var(--_rem)); border: 1px solid var(--_line); border-radius: 8px; background: var(--_panel);
  width: calc(16 * var(--_rem)); max-width: calc(50% - .3 * var(--_rem)); box-sizing: border-box; }
.al-trainer-head.al-formed { border-color: var(--_accent); box-shadow: inset 0 0 0 1px var(--_accent); }
.al-trainer-head-view:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
.al-trainer-head figcaption { font-size: calc(.85 * var(--_rem)); margin-bottom: calc(.2 * var(--_rem)); }
.al-trainer-canvas { display: block; width: 100%; aspect-ratio: 1; image-rendering: pixelated; background: repeating-linear-gradient(135deg, var(--_panel) 0 4px, var(--_mask) 4px 5px); }
.al-trainer-bars { display: grid; grid-template-columns: 1fr auto; align-items: center; gap: 1px calc(.3 * var(--_rem)); margin-top: calc(.3 * var(--_rem)); font-size: calc(.8 * var(--_rem)); }
.al-trainer-track { display: block; grid-column: 1 / -1; height: calc(.5 * var(--_rem)); background: var(--_bg); border-radius: 3px; overflow: hidden; margin-bottom: calc(.2 * var(--_rem)); }
.al-trainer-track .al-bar { display: block; height: 100%; }
.al-trainer-track .al-bar-prev { background: var(--_focus); }
.al-trainer-track .al-bar-all { opacity: .55; }
.al-legend-list { list-style: none; padding: 0; margin: calc(.3 * var(--_rem)) 0 0; }
.al-legend-list li { display: inline-flex; align-items: center; gap: calc(.35 * var(--_rem)); }
.al-chart.al-swatch { width: 28px; height: 10px; flex: none; }
.al-trainer-score { font-variant-numeric: tabular-nums; }
.al-trainer-head-export { display: flex; justify-content: flex-end; margin-top: calc(.2 * var(--_rem)); }
.al-trainer-reveal { border-left: 4px solid var(--_accent); padding: calc(.4 * var(--_rem)) calc(.75 * var(--_rem)); background: var(--_panel); margin: calc(.5 * var(--_rem)) 0; }
.al-trainer-reveal .al-verdict-ok { color: var(--_ok); }
.al-trainer-reveal .al-verdict-bad { color: var(--_bad); }
.al-trainer-knockout { border-top: 1px solid var(--_line); margin-top: calc(.75 * var(--_rem)); padding-top: calc(.25 * var(--_rem)); }
.al-ko-heads { display: flex; flex-wrap: wrap; gap: calc(.5 * var(--_rem)) calc(1 * var(--_rem)); margin: calc(.4 * var(--_rem)) 0; }
.al-ko-layer { display: flex; flex-wrap: wrap; align-items: center; gap: calc(.4 * var(--_rem)); }
.al-ko-layer-name { font-weight: 600; }
/* a head knocked out, in the trainer and in the model view alike: struck through on the colour of a loss */
.al-ko-head[aria-pressed="true"] { background: var(--_bad); border-color: var(--_bad); color: var(--_bg); text-decoration: line-through; }
.al-ko-result { font-variant-numeric: tabular-nums; min-height: 1.45em; }
.al-ko-scores { list-style: none; padding: 0; margin: 0 0 calc(.5 * var(--_rem)); font-variant-numeric: tabular-nums; }
.al-ko-scores .al-ko-out { color: var(--_muted); }
.al-trainer-head.al-knocked { border-style: dashed; border-color: var(--_bad); }
.al-trainer-head.al-knocked .al-trainer-canvas { opacity: .35; }
.al-trainer-downloads { display: flex; flex-wrap: wrap; gap: calc(.5 * var(--_rem)); }
@media (forced-colors: active) { .al-trainer-canvas, .al-trainer-track .al-bar { forced-color-adjust: none; } }
@media print { .al-trainer-settings, .al-trainer-downloads, .al-trainer-head-export { display: none; } }
`;

module.exports = { TRAINER_CSS };
