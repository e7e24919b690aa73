'use strict';
// The space a widget holds on a page that loads attention-lab.js deferred, before the script
// has defined the element: the same heights the widget reserves itself once defined
// (web/src/ui/reserve.js, picked by the widget's width in the same steps), so that nothing
// shifts when the script arrives. CSS only, made at build time: dist/attention-lab-reserve.css
// for authors, and appended to the lesson site's site.css. A page built ahead (the lesson
// site) also writes each widget's own heights on it (reserveStyle), where its tokens change
// them; any page gets each element's default.

const { WIDGETS } = require('../web/src/kit/manifest.js');
const { estimateHeights, reserveConfig, WIDTHS, POSITION_PARTS } = require('../web/src/ui/reserve.js');

const TAGS = Object.keys(WIDGETS);
const heightsCss = (heights) => heights.map((h, i) => `--al-r${i}:${h}px`).join(';');

/** The stylesheet: every element's default heights, and the rules that pick one by width. */
function reserveCss() {
  // Zero specificity (:where), so a page's own margins on the widgets win, as they do over the
  // defined widget's; the widget itself is the container its ::before measures.
  const waiting = `:where(${TAGS.map((t) => `${t}:not(:defined)`).join(',')})`;
  const lines = [
    '/* attention-lab: the space each widget holds until attention-lab.js (loaded with defer) has run. */',
    `${waiting}{display:block;margin:1.25em 0;max-width:100%;container-type:inline-size}`,
    `${waiting}::before{content:"";display:block;height:var(--al-r0,0px)}`,
    ...WIDTHS.slice(1).map((w, i) => `@container (min-width:${w}px){${waiting}::before{height:var(--al-r${i + 1},0px)}}`),
    ...TAGS.map((tag) => `:where(${tag}){${heightsCss(estimateHeights(tag))}}`),
    // <position-lab>'s parts differ in height: each part's own, by its attribute
    ...Object.keys(POSITION_PARTS).map((part) => `:where(position-lab[part="${part}"]){${heightsCss(estimateHeights('position-lab', { part }))}}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The style attribute's text for a widget whose attributes (`attr(name)`: text or null) change
 * its heights from its element's default; null when they do not.
 */
function reserveStyle(tag, attr) {
  if (!WIDGETS[tag]) return null;
  const own = estimateHeights(tag, reserveConfig(attr));
  const base = estimateHeights(tag);
  return own.some((h, i) => h !== base[i]) ? heightsCss(own) : null;
}

module.exports = { reserveCss, reserveStyle, TAGS };
if (require.main === module) process.stdout.write(reserveCss());
