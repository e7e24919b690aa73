'use strict';
// Widget styles, adopted once per document as a constructable stylesheet (no <style>
// element, no stylesheet file for authors to link). Colours follow the page's light or
// dark preference through custom properties that a page may override.

const { EXPORT_CSS } = require('./export-menu.js');
const { PRINT_CSS } = require('./print.js');

const CSS = `
.al-widget {
  --al-fg: #1b1b1f; --al-muted: #55555f; --al-bg: #ffffff; --al-panel: #f4f4f7; --al-line: #c9c9d3;
  --al-accent: #1f5fbf; --al-accent-fg: #ffffff; --al-hl: #ffe58a; --al-hl-fg: #1b1b1f; --al-ok: #1d6b35; --al-bad: #a3242a;
  --al-mask: #9a9aa6; --al-focus: #c2410c;
  display: block; box-sizing: border-box; max-width: 100%; margin: 1.25rem 0; padding: 1rem;
  border: 1px solid var(--al-line); border-radius: 10px; background: var(--al-bg); color: var(--al-fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  overflow-wrap: break-word;
}
@media (prefers-color-scheme: dark) {
  .al-widget {
    --al-fg: #ececf1; --al-muted: #b4b4c0; --al-bg: #18181d; --al-panel: #23232a; --al-line: #44444f;
    --al-accent: #7fb0ff; --al-accent-fg: #0c0c10; --al-hl: #6b5a12; --al-hl-fg: #ffffff; --al-ok: #6fd391; --al-bad: #ff8a8f;
    --al-mask: #6c6c78; --al-focus: #fb923c;
  }
}
.al-widget *, .al-widget *::before, .al-widget *::after { box-sizing: inherit; }
.al-widget [hidden] { display: none !important; }
.al-widget h3 { margin: 0 0 .5rem; font-size: 1.05rem; }
.al-widget p { margin: .4rem 0; }
.al-muted { color: var(--al-muted); font-size: .9em; }
.al-loading { color: var(--al-muted); font-style: italic; }
.al-error { border-left: 4px solid var(--al-bad); padding: .5rem .75rem; background: var(--al-panel); }
.al-error-message { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .9em; }
.al-widget button, .al-widget select, .al-widget input {
  font: inherit; color: var(--al-fg); background: var(--al-panel); border: 1px solid var(--al-line);
  border-radius: 6px; padding: .3rem .6rem; min-height: 2rem;
}
.al-widget input[type="number"] { width: 5.5rem; }
.al-widget input[type="checkbox"] { min-height: 0; width: 1.1rem; height: 1.1rem; vertical-align: -0.15rem; accent-color: var(--al-accent); }
.al-widget input[type="range"] { padding: 0; accent-color: var(--al-accent); vertical-align: middle; }
.al-widget button { cursor: pointer; }
.al-widget button[aria-pressed="true"], .al-widget button.al-primary { background: var(--al-accent); color: var(--al-accent-fg); border-color: var(--al-accent); }
.al-widget button:disabled { opacity: .5; cursor: default; }
.al-widget :focus-visible { outline: 3px solid var(--al-focus); outline-offset: 2px; }
.al-controls { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin: .5rem 0 .75rem; }
.al-controls label { display: inline-flex; gap: .4rem; align-items: center; }
.al-group { display: flex; flex-wrap: wrap; gap: .35rem; align-items: center; }
.al-formula { display: inline-flex; flex-wrap: wrap; gap: .15em; align-items: center; font-size: 1.1em; }
.al-term { padding: 0 .1em; border-radius: 4px; }
.al-term-active { background: var(--al-hl); color: var(--al-hl-fg); }
.al-narration { min-height: 3em; padding: .5rem .75rem; background: var(--al-panel); border-radius: 8px; }
.al-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
.al-table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: .25rem 0; }
.al-table th, .al-table td { border: 1px solid var(--al-line); padding: .2rem .45rem; text-align: right; }
.al-table td { white-space: nowrap; }
.al-table th { background: var(--al-panel); text-align: left; font-weight: 600; }
.al-table tr.al-current td, .al-table tr.al-current th { background: var(--al-hl); color: var(--al-hl-fg); }
.al-scroll { overflow-x: auto; max-width: 100%; }
.al-cell-button { font-variant-numeric: tabular-nums; min-width: 3.2rem; }
.al-derivation { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .88em; min-height: 1.5em; white-space: pre-wrap; }
.al-bar { display: inline-block; height: .8rem; background: var(--al-accent); border-radius: 3px; vertical-align: middle; }
.al-heatmap-wrap { display: inline-block; max-width: 100%; }
.al-heatmap { display: grid; gap: 2px; font-variant-numeric: tabular-nums; font-size: .8rem; }
.al-heatmap [role="columnheader"], .al-heatmap [role="rowheader"] { color: var(--al-muted); padding: 0 .2rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.al-heatmap [role="columnheader"] { text-align: center; font-size: .75rem; }
.al-heatmap [role="rowheader"] { text-align: right; align-self: center; }
.al-heatmap [role="row"] { display: contents; }
.al-cell { aspect-ratio: 1 / 1; min-width: 1.2rem; display: flex; align-items: center; justify-content: center; border-radius: 3px; cursor: default; user-select: none; }
.al-cell.al-masked { background: repeating-linear-gradient(135deg, var(--al-panel) 0 4px, var(--al-mask) 4px 6px); color: var(--al-fg); }
.al-cell.al-picked { outline: 3px dashed var(--al-focus); outline-offset: -3px; }
.al-cell:focus-visible { outline: 3px solid var(--al-focus); outline-offset: 1px; position: relative; z-index: 1; }
.al-heatmap-canvas { display: block; image-rendering: pixelated; border-radius: 3px; }
.al-legend { display: flex; gap: .75rem; align-items: center; flex-wrap: wrap; margin-top: .4rem; font-size: .8rem; color: var(--al-muted); }
.al-legend-bar { width: 9rem; height: .7rem; border-radius: 3px; }
.al-legend-mask { display: inline-block; width: 1rem; height: .8rem; border-radius: 2px; background: repeating-linear-gradient(135deg, var(--al-panel) 0 4px, var(--al-mask) 4px 6px); border: 1px solid var(--al-line); vertical-align: middle; }
.al-canvas-mode .al-legend-mask { background: rgb(154, 154, 166); }
.al-predict { border: 1px dashed var(--al-line); border-radius: 8px; padding: .5rem .75rem; margin: .5rem 0; }
.al-predict .al-verdict-ok { color: var(--al-ok); font-weight: 600; }
.al-predict .al-verdict-bad { color: var(--al-bad); font-weight: 600; }
.al-row { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.al-heads { display: flex; flex-wrap: wrap; gap: 1rem; }
.al-chart { width: 100%; max-width: 34rem; height: auto; display: block; }
.al-chart text { fill: var(--al-muted); font-size: 11px; }
.al-chart .al-axis { stroke: var(--al-line); }
.al-chart .al-curve { fill: none; stroke: var(--al-accent); stroke-width: 2; }
.al-chart .al-curve-2 { fill: none; stroke: var(--al-focus); stroke-width: 2; stroke-dasharray: 5 3; }
.al-chart .al-point { fill: var(--al-focus); }
.al-chart .al-point-2 { fill: var(--al-accent); }
.al-chart .al-point-hollow { fill: var(--al-bg); stroke: var(--al-focus); stroke-width: 2; }
.al-steps { display: flex; flex-wrap: wrap; gap: .35rem; list-style: none; padding: 0; margin: .5rem 0; counter-reset: step; }
.al-steps li { padding: .15rem .5rem; border-radius: 999px; border: 1px solid var(--al-line); font-size: .85rem; color: var(--al-muted); }
.al-steps li[aria-current="step"] { background: var(--al-accent); color: var(--al-accent-fg); border-color: var(--al-accent); }
.al-how { display: block; font-weight: 400; font-size: .85em; color: var(--al-muted); }
.al-pad { color: var(--al-muted); font-style: italic; }
@media (prefers-reduced-motion: no-preference) {
  .al-cell, .al-bar { transition: background-color .18s ease, width .25s ease; }
}
` + EXPORT_CSS + PRINT_CSS;

const adopted = new WeakSet();

function injectStyles(doc) {
  if (adopted.has(doc)) return;
  adopted.add(doc);
  const view = doc.defaultView;
  if (view && 'CSSStyleSheet' in view && 'adoptedStyleSheets' in doc) {
    const sheet = new view.CSSStyleSheet();
    sheet.replaceSync(CSS);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  } else {
    const style = doc.createElement('style');
    style.textContent = CSS;
    doc.head.append(style);
  }
}

module.exports = { injectStyles, CSS };
