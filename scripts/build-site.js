'use strict';
// Builds the example lesson site into dist/: each page in web/site/*.html is a fragment
// with a title comment; math between $$...$$ (display) or \( ... \) (inline) is typeset
// to MathML with KaTeX here, so pages load no script but attention-lab.js and fetch nothing.

const fs = require('fs');
const path = require('path');
const katex = require('katex');
const { reserveCss, reserveStyle, TAGS } = require('./reserve-css.js');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'web', 'site');
const out = path.join(root, 'dist');

const PAGES = [
  { file: 'index.html', nav: 'Start' },
  { file: 'lesson-1.html', nav: '1. Weighted averages' },
  { file: 'lesson-2.html', nav: '2. Masks, scaling, heads' },
  { file: 'lesson-3.html', nav: '3. Queries, keys, values' },
  { file: 'lesson-4.html', nav: '4. What attention costs' },
  { file: 'lesson-5.html', nav: '5. Common mistakes' },
  { file: 'lesson-6.html', nav: '6. Where patterns come from' },
  // The trained model's script (dist/attention-lab-model.js) is not on any page: the kit fetches it
  // from beside itself when a <model-attention model> comes near (web/src/kit/shipped-model.js).
  { file: 'lesson-7.html', nav: '7. Trained models' },
  // After lesson 7: its race trains lesson 6's model and looks for the heads lessons 6 and 7 found.
  { file: 'lesson-8.html', nav: '8. Word order' },
  // Generated from custom-elements.json (scripts/elements-page.js): every element, live.
  { file: 'elements.html', nav: 'Elements', reference: true, generate: () => require('./elements-page.js').elementsFragment() },
];

const ASSETS = ['site.css', 'site.js', 'favicon.svg'];

function typeset(html, file) {
  const render = (tex, displayMode) => {
    try {
      return katex.renderToString(tex.trim(), { output: 'mathml', displayMode, throwOnError: true });
    } catch (err) {
      throw new Error(`${file}: cannot typeset ${JSON.stringify(tex)}: ${err.message}`);
    }
  };
  // Chromium may break a line after a <math> element (an atomic inline) even before a full stop:
  // inline math and the punctuation right after it (also after a <span data-fact> holding only
  // that math) are kept on one line.
  const PUNCT = '[.,;:!?)\\]\u2019\u201d]+';
  const keep = (inner, punct) => (punct ? `<span class="nobr">${inner}${punct}</span>` : inner);
  // Code listings are left as written: Python may contain dollar signs or backslashes.
  return html.split(/(<pre[\s\S]*?<\/pre>)/).map((part) => (part.startsWith('<pre') ? part : part
    .replace(/\$\$([\s\S]+?)\$\$/g, (_, tex) => `<div class="math-display">${render(tex, true)}</div>`)
    .replace(new RegExp(`(<span data-fact="[^"]*">)\\\\\\(((?:(?!\\\\\\))[\\s\\S])+?)\\\\\\)</span>(${PUNCT})`, 'g'), (_, open, tex, punct) => keep(`${open}${render(tex, false)}</span>`, punct))
    .replace(new RegExp(`\\\\\\(([\\s\\S]+?)\\\\\\)(${PUNCT})?`, 'g'), (_, tex, punct) => keep(render(tex, false), punct)))).join('');
}

/**
 * Each widget whose attributes (its tokens) change the height it will need gets those heights
 * on its element (scripts/reserve-css.js), held until the deferred kit has run.
 */
function reserveSpace(html) {
  const tags = new RegExp(`<(${TAGS.join('|')})(\\s[^>]*)?>`, 'g');
  return html.replace(tags, (whole, tag, attrs = '') => {
    const found = new Map();
    for (const a of attrs.matchAll(/([\w-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
      if (!found.has(a[1])) found.set(a[1], a[2] ?? a[3] ?? a[4] ?? '');
    }
    if (found.has('style')) throw new Error(`<${tag}> has a style attribute: the build writes its reserved heights there`);
    const style = reserveStyle(tag, (name) => (found.has(name) ? found.get(name) : null));
    return style ? `<${tag}${attrs} style="${style}">` : whole;
  });
}

function layout({ title, body, current }) {
  const link = (p) => `<a href="${p.file}"${p.file === current ? ' aria-current="page"' : ''}>${p.nav}</a>`;
  const nav = PAGES.map(link).join('\n      ');
  const i = PAGES.findIndex((p) => p.file === current);
  // A narrow screen shows the lessons as a menu that opens below the header (site.css).
  const menu = PAGES.map((p) => `<li>${link(p)}</li>`).join('\n        ');
  const prev = i > 0 ? `<a rel="prev" href="${PAGES[i - 1].file}">\u2190 ${PAGES[i - 1].nav}</a>` : '<span></span>';
  const next = i < PAGES.length - 1 ? `<a rel="next" href="${PAGES[i + 1].file}">${PAGES[i + 1].nav} \u2192</a>` : '<span></span>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} \u2013 attention-lab</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="site.css">
<script src="attention-lab.js" defer></script>
<script src="site.js" defer></script>
</head>
<body>
  <a class="skip" href="#main">Skip to the lesson</a>
  <header class="site-header">
    <a class="brand" href="index.html">attention-lab</a>
    <nav class="site-nav" aria-label="Lessons">
      ${nav}
    </nav>
    <details class="site-menu">
      <summary><span class="site-menu-label">Lessons</span> <span class="site-menu-current">${PAGES[i].nav}</span></summary>
      <nav aria-label="Lessons"><ul>
        ${menu}
      </ul></nav>
    </details>
  </header>
  <main id="main">
${body}
    <nav class="pager" aria-label="Previous and next lesson">${prev}${next}</nav>
  </main>
  <footer class="site-footer"><p>Every number on these pages is computed in your browser by the attention-lab engine (C++ compiled to WebAssembly). Nothing is fetched from the network.</p></footer>
</body>
</html>
`;
}

function buildSite() {
  fs.mkdirSync(out, { recursive: true });
  for (const page of PAGES) {
    const text = page.generate ? page.generate() : fs.readFileSync(path.join(src, page.file), 'utf8');
    const m = text.match(/^<!--\s*title:\s*(.+?)\s*-->\s*\n/);
    if (!m) throw new Error(`${page.file}: the first line must be <!-- title: ... -->`);
    const body = reserveSpace(typeset(text.slice(m[0].length), page.file));
    fs.writeFileSync(path.join(out, page.file), layout({ title: m[1], body, current: page.file }));
  }
  for (const file of ASSETS) fs.copyFileSync(path.join(src, file), path.join(out, file));
  // The pages load the kit deferred: their text paints before it arrives, each widget's space held.
  fs.appendFileSync(path.join(out, 'site.css'), `\n${reserveCss()}`);
  console.log(`build: dist/ (${[...PAGES.map((p) => p.file), ...ASSETS].join(', ')})`);
  require('./build-embed.js').buildEmbed();
}

module.exports = { buildSite, PAGES, ASSETS };
if (require.main === module) buildSite();
