'use strict';
// Widget styles: one constructable stylesheet per document, adopted by every widget's shadow
// root (no <style> element, so a strict style-src needs nothing extra; no stylesheet for
// authors to link). The page's CSS cannot reach inside; it themes the widgets through the
// documented custom properties (--al-*) and ::part() names. Colours follow the page's
// color-scheme through light-dark(); lengths scale with --al-font-size, never the page's rem.

const { EXPORT_CSS } = require('./export-menu.js');
const { PRINT_CSS } = require('./print.js');
const { MISTAKES_CSS } = require('./mistakes-styles.js');
const { ONLINE_SOFTMAX_CSS, KV_CACHE_CSS } = require('./stepper-styles.js');
const { COST_CSS } = require('./cost-styles.js');
const { TRAINER_CSS } = require('./trainer-styles.js');
const { RACE_CSS } = require('./race-styles.js');
const { MODEL_ATTENTION_CSS } = require('./model-attention-styles.js');
const { POSITION_CSS } = require('./position-styles.js');
const { TEXT_SIZES } = require('../ui/chart.js');
const { WIDTHS } = require('../ui/reserve.js');

/** Picks the reserved height (--al-h<i>, set by base.js) for the host's width, for each of reserve.js's WIDTHS. */
function reserveCss() {
  return WIDTHS.slice(1).map((w, i) => `@container (min-width:${w}px){.al-frame{--_reserve:var(--al-h${i + 1},0px)}}`).join('');
}

/**
 * Chart text sizes by widget width, and the tick labels left out at each (ui/chart.js decides
 * both). Chart text is in viewBox units: a narrow widget shrinks its charts, so their text is
 * set larger to stay 11 CSS px or more once scaled.
 */
function chartTextCss() {
  return TEXT_SIZES.map(({ maxWidth, size }, i) => {
    const rules = `.al-chart text{font-size:${size}px}${i ? `.al-chart text.al-thin-${i}{display:none}` : ''}`;
    return maxWidth ? `@container (max-width:${maxWidth}px){${rules}}` : rules;
  }).join('');
}

/**
 * Text on the accent: black or white, whichever reads better on it, so an author's light
 * --al-accent (#ffd54f) gets dark text; --al-accent-fg still wins. contrast-color() picks by
 * WCAG contrast; before it, the accent's OKLCH lightness decides (0.6: where black and white
 * read about equally); before that, the default pair. tests/browser/hosts3.test.js checks both.
 */
const ACCENT_FG = {
  contrast: 'contrast-color(var(--_accent))',
  lightness: 'oklch(from var(--_accent) clamp(0, (.6 - l) * 1000, 1) 0 0)',
};

function accentCss() {
  const rule = (test, color) => `@supports (color: ${test}) { .al-frame { --_accent-fg: var(--al-accent-fg, ${color}); } }`;
  return rule('oklch(from red l c h)', ACCENT_FG.lightness) + rule('contrast-color(red)', ACCENT_FG.contrast);
}

const WIDGET_CSS = `
/* Horizontal also on a page in vertical writing (the diagrams' axes are horizontal); such a box
   is then orthogonal to its parent, and with inline-size containment it would shrink to nothing
   unless it fills the space it is given (the same as auto in ordinary block flow). */
:host { display: block; margin: 1.25em 0; max-width: 100%; container-type: inline-size; writing-mode: horizontal-tb; width: -webkit-fill-available; width: stretch; }
:host([hidden]) { display: none; }
.al-frame {
  /* The space a widget holds before it is drawn, by its width (reserve.js: the heights, set on
     the frame as --al-h<i> by base.js, one for each of reserve.js's WIDTHS); the loading line
     keeps it open. Not content-visibility: auto on the frame: in Chromium 156 a widget in view
     then kept stale styles after a change, and Tab skipped a prompt it had just shown. */
  --_reserve: var(--al-h0, 0px);
  --_rem: var(--al-font-size, 15px);
  --_fg: var(--al-fg, light-dark(#1b1b1f, #ececf1)); --_muted: var(--al-muted, light-dark(#55555f, #b4b4c0));
  --_bg: var(--al-bg, light-dark(#ffffff, #18181d)); --_panel: var(--al-panel, light-dark(#f4f4f7, #23232a));
  --_line: var(--al-line, light-dark(#c9c9d3, #44444f)); --_accent: var(--al-accent, light-dark(#1f5fbf, #7fb0ff));
  --_accent-fg: var(--al-accent-fg, light-dark(#ffffff, #0c0c10)); --_hl: var(--al-hl, light-dark(#ffe58a, #6b5a12));
  --_hl-fg: var(--al-hl-fg, light-dark(#1b1b1f, #ffffff)); --_ok: var(--al-ok, light-dark(#1d6b35, #6fd391));
  --_bad: var(--al-bad, light-dark(#a3242a, #ff8a8f)); --_mask: var(--al-mask, light-dark(#9a9aa6, #6c6c78));
  --_focus: var(--al-focus, light-dark(#c2410c, #fb923c));
  box-sizing: border-box; max-width: 100%; padding: var(--al-padding, 1em);
  border: 1px solid var(--_line); border-radius: var(--al-radius, 10px); background: var(--_bg); color: var(--_fg);
  font: normal normal 400 var(--al-font-size, 15px)/1.45 var(--al-font, system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif);
  letter-spacing: normal; word-spacing: normal; text-transform: none; text-align: start; text-indent: 0; text-shadow: none;
  white-space: normal; font-variant: normal; cursor: auto; overflow-wrap: break-word;
  direction: ltr; writing-mode: horizontal-tb;
}
/* In a box that clips without scrolling (host-page.js fitInClip): the room left there, scrolled
   inside. A layer of its own: in a scaled slide Chromium 156 otherwise paints part of the
   scrolled content over the frame's bottom border. */
.al-frame.al-fit { max-height: var(--_fit); overflow-y: auto; overscroll-behavior: contain; will-change: transform; }
.al-frame.al-dark { color-scheme: dark; }
.al-frame.al-light { color-scheme: light; }
*, *::before, *::after { box-sizing: inherit; }
/* A page without a doctype (quirks mode) gives tables the browser's medium font and normal
   line height instead of inheriting them: the widget's own sizes must reach its tables. And
   a line holding only MathML gets no line height there: a zero-width space gives it one. */
table { font: inherit; color: inherit; }
.al-term::before { content: "\200b"; }
[hidden] { display: none !important; }
h3 { margin: 0 0 calc(.5 * var(--_rem)); font-size: calc(1.05 * var(--_rem)); }
p { margin: calc(.4 * var(--_rem)) 0; }
.al-muted { color: var(--_muted); font-size: .9em; }
math { font-family: "STIX Two Math", "Cambria Math", "Latin Modern Math", "DejaVu Math TeX Gyre", math; }
.al-loading { color: var(--_muted); font-style: italic; margin: 0; min-height: var(--_reserve); }
/* A first view being laid out part by part behind the loading line (base.js unveil()). */
.al-frame.al-staging { contain: size; contain-intrinsic-block-size: var(--_reserve); overflow: clip; }
.al-staging > .al-loading { position: absolute; }
.al-staging > :not(.al-loading) { visibility: hidden; }
.al-staging > .al-unlaid { display: none !important; }
.al-error { border-left: 4px solid var(--_bad); padding: calc(.5 * var(--_rem)) calc(.75 * var(--_rem)); background: var(--_panel); }
.al-error-message { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .9em; }
button, select, input {
  font: inherit; color: var(--_fg); background: var(--_panel); border: 1px solid var(--_line);
  border-radius: 6px; padding: calc(.3 * var(--_rem)) calc(.6 * var(--_rem)); min-height: calc(2 * var(--_rem));
}
input[type="number"] { width: calc(5.5 * var(--_rem)); }
input[type="checkbox"] { min-height: 0; width: calc(1.1 * var(--_rem)); height: calc(1.1 * var(--_rem)); vertical-align: -0.15rem; accent-color: var(--_accent); }
input[type="range"] { padding: 0; accent-color: var(--_accent); vertical-align: middle; }
input[aria-invalid="true"] { border-color: var(--_bad); box-shadow: inset 0 0 0 1px var(--_bad); }
.al-field-message { color: var(--_bad); font-weight: 600; margin: calc(.25 * var(--_rem)) 0; }
.al-field-message:empty { display: none; }
button { cursor: pointer; }
button[aria-pressed="true"], button.al-primary { background: var(--_accent); color: var(--_accent-fg); border-color: var(--_accent); }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
.al-controls { display: flex; flex-wrap: wrap; gap: calc(.5 * var(--_rem)) calc(1 * var(--_rem)); align-items: center; margin: calc(.5 * var(--_rem)) 0 calc(.75 * var(--_rem)); }
.al-controls label { display: inline-flex; gap: calc(.4 * var(--_rem)); align-items: center; }
/* A checkbox is tapped through its label: as tall as a button, so a finger finds it (WCAG 2.5.8 asks 24 px). */
.al-controls label:has(> input[type="checkbox"]) { min-height: calc(2 * var(--_rem)); }
.al-vector { display: inline-flex; gap: calc(.3 * var(--_rem)); align-items: center; white-space: nowrap; }
.al-group { display: flex; flex-wrap: wrap; gap: calc(.35 * var(--_rem)); align-items: center; }
.al-formula { display: inline-flex; flex-wrap: wrap; gap: .15em; align-items: center; font-size: 1.1em; }
.al-term { padding: 0 .1em; border-radius: 4px; }
.al-term-active { background: var(--_hl); color: var(--_hl-fg); }
.al-narration { min-height: 3em; padding: calc(.5 * var(--_rem)) calc(.75 * var(--_rem)); background: var(--_panel); border-radius: 8px; }
.al-sr, .al-heads.al-compact .al-axis-query > span { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
.al-table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: calc(.25 * var(--_rem)) 0; }
.al-table th, .al-table td { border: 1px solid var(--_line); padding: calc(.2 * var(--_rem)) calc(.45 * var(--_rem)); text-align: right; }
.al-table td { white-space: nowrap; }
.al-table th { background: var(--_panel); text-align: left; font-weight: 600; }
.al-table tr.al-current td, .al-table tr.al-current th { background: var(--_hl); color: var(--_hl-fg); }
.al-scroll { overflow-x: auto; max-width: 100%; --_fade: calc(1.5 * var(--_rem)); scroll-padding-inline: var(--_fade);
  --_more: linear-gradient(90deg, #0000, #000 var(--_fade), #000 calc(100% - var(--_fade)), #0000); }
/* A box that scrolls sideways fades out on each side that has more to show: phones hide
   scrollbars. A scroll-driven animation follows the box's own scroll position; a box with
   nothing to scroll has no timeline, so no fade. Focus scrolls things clear of the fades
   (scroll-padding), and the box's own focus ring is drawn inside, where the mask keeps it. */
@supports (animation-timeline: scroll()) {
  .al-scroll { animation: al-more linear both; animation-timeline: scroll(self inline); }
  .al-scroll:focus-visible { outline-offset: -3px; }
}
@keyframes al-more {
  from { mask: var(--_more) calc(-1 * var(--_fade)) 0 / calc(100% + var(--_fade)) 100% no-repeat; }
  2%, 98% { mask: var(--_more) 0 0 / 100% 100% no-repeat; }
  to { mask: var(--_more) 0 0 / calc(100% + var(--_fade)) 100% no-repeat; }
}
.al-cell-button { font-variant-numeric: tabular-nums; min-width: calc(3.2 * var(--_rem)); }
.al-derivation { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .88em; min-height: 1.5em; white-space: pre-wrap; }
.al-derivation.al-muted { font-family: inherit; white-space: normal; }
.al-bar { display: inline-block; height: calc(.8 * var(--_rem)); background: var(--_accent); border-radius: 3px; vertical-align: middle; }
.al-heatmap-wrap { display: inline-block; max-width: 100%; }
.al-heatmap { display: grid; gap: 2px; font-variant-numeric: tabular-nums; font-size: calc(.8 * var(--_rem)); }
.al-heatmap [role="columnheader"], .al-heatmap [role="rowheader"] { color: var(--_muted); padding: 0 calc(.2 * var(--_rem)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.al-heatmap [role="columnheader"] { text-align: center; font-size: calc(.75 * var(--_rem)); }
.al-heatmap [role="rowheader"] { text-align: right; align-self: center; }
.al-heatmap [role="row"] { display: contents; }
.al-cell { aspect-ratio: 1 / 1; min-width: calc(1.2 * var(--_rem)); display: flex; align-items: center; justify-content: center; border-radius: 3px; cursor: default; user-select: none; }
.al-cell.al-masked { background: repeating-linear-gradient(135deg, var(--_panel) 0 4px, var(--_mask) 4px 6px); color: var(--_fg); }
.al-cell.al-hidden-cell { background: var(--_panel); color: var(--_muted); border: 1px dashed var(--_line); }
.al-cell.al-picked { outline: 3px dashed var(--_focus); outline-offset: -3px; }
.al-cell:focus-visible { outline: 3px solid var(--_focus); outline-offset: 1px; position: relative; z-index: 1; }
.al-heatmap-canvas { display: block; image-rendering: pixelated; border-radius: 3px; }
.al-heatmap .al-axis { color: var(--_fg); font-weight: 600; font-size: calc(.75 * var(--_rem)); white-space: nowrap; }
.al-heatmap .al-axis-key { grid-column: 2 / -1; text-align: left; padding-left: calc(.2 * var(--_rem)); }
.al-heatmap .al-axis-query { text-align: right; align-self: end; }
.al-axes { display: flex; gap: calc(1 * var(--_rem)); flex-wrap: wrap; margin: 0 0 calc(.25 * var(--_rem)); font-size: calc(.8 * var(--_rem)); font-weight: 600; }
.al-readout { margin: calc(.35 * var(--_rem)) 0 0; min-height: 1.4em; font-size: calc(.85 * var(--_rem)); font-variant-numeric: tabular-nums; }
.al-renorm { font-size: calc(.85 * var(--_rem)); min-height: 1.4em; }
.al-legend { display: flex; gap: calc(.75 * var(--_rem)); align-items: center; flex-wrap: wrap; margin-top: calc(.4 * var(--_rem)); font-size: calc(.8 * var(--_rem)); color: var(--_muted); }
.al-legend-bar { width: calc(9 * var(--_rem)); height: calc(.7 * var(--_rem)); border-radius: 3px; }
.al-legend-mask { display: inline-block; width: calc(1 * var(--_rem)); height: calc(.8 * var(--_rem)); border-radius: 2px; background: repeating-linear-gradient(135deg, var(--_panel) 0 4px, var(--_mask) 4px 6px); border: 1px solid var(--_line); vertical-align: middle; }
.al-canvas-mode .al-legend-mask { background: rgb(154, 154, 166); }
.al-predict { border: 1px dashed var(--_line); border-radius: 8px; padding: calc(.5 * var(--_rem)) calc(.75 * var(--_rem)); margin: calc(.5 * var(--_rem)) 0; }
.al-predict .al-group > button { text-align: left; }
.al-predict .al-verdict-ok { color: var(--_ok); font-weight: 600; }
.al-predict .al-verdict-bad { color: var(--_bad); font-weight: 600; }
.al-predict .al-verdict-hint, .al-quiz-verdict.al-verdict-hint { font-weight: 600; }
.al-quiz-verdict { display: block; white-space: normal; max-width: calc(22 * var(--_rem)); font-weight: 600; }
.al-quiz-verdict.al-verdict-ok { color: var(--_ok); }
.al-quiz-verdict.al-verdict-bad { color: var(--_bad); }
.al-row { display: flex; flex-wrap: wrap; gap: calc(1 * var(--_rem)); align-items: flex-start; }
.al-heads { display: flex; flex-wrap: wrap; gap: calc(1 * var(--_rem)); }
.al-chart { width: 100%; max-width: calc(34 * var(--_rem)); height: auto; display: block; }
.al-chart text { fill: var(--_muted); }
.al-chart .al-axis { stroke: var(--_line); }
.al-chart .al-curve { fill: none; stroke: var(--_accent); stroke-width: 2; }
.al-chart .al-curve-2 { fill: none; stroke: var(--_focus); stroke-width: 2; stroke-dasharray: 5 3; }
.al-chart .al-point { fill: var(--_focus); }
.al-chart .al-point-2 { fill: var(--_accent); }
.al-chart .al-point-hollow { fill: var(--_bg); stroke: var(--_focus); stroke-width: 2; }
.al-steps { display: flex; flex-wrap: wrap; gap: calc(.35 * var(--_rem)); list-style: none; padding: 0; margin: calc(.5 * var(--_rem)) 0; counter-reset: step; }
.al-steps li { padding: calc(.15 * var(--_rem)) calc(.5 * var(--_rem)); border-radius: 999px; border: 1px solid var(--_line); font-size: calc(.85 * var(--_rem)); color: var(--_muted); }
.al-steps li[aria-current="step"] { background: var(--_accent); color: var(--_accent-fg); border-color: var(--_accent); }
.al-how { display: block; font-weight: 400; font-size: .85em; color: var(--_muted); }
.al-pad { color: var(--_muted); font-style: italic; }
.al-frame { container-type: inline-size; }
.al-controls label { max-width: 100%; }
.al-controls label.al-wrap { flex-wrap: wrap; }
.al-controls select { max-width: 100%; min-width: 0; flex: 0 1 auto; text-overflow: ellipsis; }
.al-heads.al-compact { display: grid; grid-template-columns: repeat(auto-fill, minmax(calc((var(--al-cols) * 1.08 + 2.4) * var(--_rem)), 1fr)); gap: calc(.35 * var(--_rem)); }
.al-heads.al-compact .al-heatmap { grid-template-columns: calc(2.2 * var(--_rem)) repeat(var(--al-cols), calc(1 * var(--_rem))) !important; gap: 1px; }
.al-heads.al-compact .al-cell { min-width: 0; }
.al-heads.al-compact .al-heatmap [role="columnheader"], .al-heads.al-compact .al-heatmap [role="rowheader"] { font-size: 11px; padding: 0 1px; }
/* Small multiples: the note above them names the axes once, for every head (the corner's name stays for screen readers, .al-sr). */
.al-heads.al-compact .al-heatmap .al-axis-key { display: none; }
.al-heads.al-compact .al-legend { display: none; }
.al-head, .al-matrix { margin: 0; }
.al-head figcaption, .al-matrix-title { font-size: calc(.85 * var(--_rem)); color: var(--_muted); }
.al-matrix-table { border-collapse: separate; border-spacing: 1px; }
.al-matrix-table th { font-size: 11px; font-weight: 400; color: var(--_muted); text-align: right; padding-right: 3px; max-width: calc(3.5 * var(--_rem)); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.al-matrix-table td { width: calc(1 * var(--_rem)); height: calc(1 * var(--_rem)); padding: 0; border-radius: 2px; }
.al-matrix-table td.al-head-edge { box-shadow: -2px 0 0 var(--_bg); }
.al-matrix-table td.al-differs { outline: 2px solid var(--_bad); outline-offset: -2px; }
.al-matrix-table td.al-read { outline: 2px solid var(--_fg); outline-offset: 1px; }
.al-sentence input[type="text"] { flex: 1 1 calc(12 * var(--_rem)); min-width: 0; }
.al-tokens button { max-width: calc(9 * var(--_rem)); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.al-table th[title] { max-width: calc(8 * var(--_rem)); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.al-unscaled { color: var(--_muted); }
.al-sums strong { color: var(--_fg); }
@container (max-width: 520px) {
  .al-bar-cell, th.al-bar-cell { display: none; }
  .al-table th, .al-table td { padding: calc(.15 * var(--_rem)) calc(.3 * var(--_rem)); }
  .al-cell-button { min-width: 0; padding: calc(.2 * var(--_rem)) calc(.35 * var(--_rem)); }
  .al-stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  .al-stack, .al-stack tbody, .al-stack tfoot, .al-stack tr { display: block; }
  .al-stack tr { border: 1px solid var(--_line); border-radius: 6px; margin: 0 0 calc(.25 * var(--_rem)); padding: calc(.1 * var(--_rem)) calc(.2 * var(--_rem)); }
  .al-stack th { display: block; border: 0; text-align: left; }
  .al-stack td { display: inline-block; border: 0; text-align: left; white-space: nowrap; margin-right: calc(.6 * var(--_rem)); }
  .al-stack th[title] { max-width: none; }
  .al-stack td[data-label]::before { content: attr(data-label) ": "; color: var(--_muted); }
  .al-stack td:empty { display: none; }
  /* A stacked row is a card: the current one is highlighted as one piece, not cell by cell
     (which left gaps between the cells and a strip of the card unpainted at its edge). */
  .al-stack tr { max-width: 100%; }
  .al-stack tr.al-current { background: var(--_hl); color: var(--_hl-fg); border-color: var(--_hl-fg); }
  .al-table.al-stack tr.al-current td, .al-table.al-stack tr.al-current th, .al-stack tr.al-current td[data-label]::before { background: transparent; color: inherit; }
}
/* Forced colours (Windows high contrast) replace every colour with the reader's palette. The
   colours of the data pictures are their content: keep them. What marks the chosen, current
   or highlighted thing is drawn in the palette's own Highlight, unforced there, else the
   browser draws its Canvas backplate behind the HighlightText. */
@media (forced-colors: active) {
  .al-cell, .al-legend-bar, .al-legend-mask, .al-matrix-table td, .al-bar { forced-color-adjust: none; }
  .al-cell.al-masked, .al-legend-mask { background: repeating-linear-gradient(135deg, Canvas 0 4px, GrayText 4px 6px); color: CanvasText; }
  button[aria-pressed="true"], .al-steps li[aria-current="step"], .al-term-active, .al-table tr.al-current td, .al-table tr.al-current th { forced-color-adjust: none; background: Highlight; color: HighlightText; border-color: Highlight; }
}
@media (prefers-reduced-motion: no-preference) {
  .al-cell, .al-bar { transition: background-color .18s ease, width .25s ease; }
}
`;

const CSS = WIDGET_CSS + accentCss() + reserveCss() + EXPORT_CSS + COST_CSS + TRAINER_CSS + RACE_CSS + ONLINE_SOFTMAX_CSS + KV_CACHE_CSS + MISTAKES_CSS + POSITION_CSS + MODEL_ATTENTION_CSS + PRINT_CSS + chartTextCss();

const sheets = new WeakMap();

/** Gives a widget's shadow root the shared stylesheet of its document (one sheet per document). */
function adoptStyles(root) {
  const doc = root.ownerDocument;
  let sheet = sheets.get(doc);
  if (!sheet) {
    const view = doc.defaultView || window;
    sheet = new view.CSSStyleSheet();
    sheet.replaceSync(CSS);
    sheets.set(doc, sheet);
  }
  root.adoptedStyleSheets = [sheet];
}

module.exports = { adoptStyles, CSS };
