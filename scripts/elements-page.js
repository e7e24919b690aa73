'use strict';
// The element reference page of the built site (dist/elements.html): for each element, what
// custom-elements.json says of it (scripts/manifest.js customElementsManifest, the same
// object the build writes there: its description, attributes, properties, events, parts and
// CSS custom properties), a live example and the example's HTML to copy (the manifest's
// `example`). build-site.js lays it out like a lesson; tests/browser/site.test.js,
// touch.test.js and facts.test.js open it as they open the lessons.

const { customElementsManifest } = require('./manifest.js');
const { WIDGETS } = require('../web/src/kit/manifest.js');

const escape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Markdown's `code` spans in a description as <code>. */
const prose = (s) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

function table(caption, head, rows) {
  if (!rows.length) return '';
  return `<table class="reference"><caption>${caption}</caption>
<thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>
<tbody>
${rows.map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row"><code>${escape(c)}</code></th>` : `<td>${c}</td>`)).join('')}</tr>`).join('\n')}
</tbody></table>`;
}

/** The example with an id of its own (each widget keeps its state in the URL under its id). */
function liveExample(tag, html) {
  const open = `<${tag}`;
  if (!html.startsWith(open)) throw new Error(`elements-page: the example of <${tag}> does not start with ${open}`);
  return `${open} id="example-${tag}"${html.slice(open.length)}`;
}

function elementSection(d) {
  const tag = d.tagName;
  const example = WIDGETS[tag].example;
  if (!example) throw new Error(`elements-page: <${tag}> has no example in web/src/kit/manifest.js`);
  const own = (list, common) => list.filter((x) => !common.has(x.name));
  const attributes = own(d.attributes, COMMON.attributes).map((a) => [a.name, `<code>${escape(a.type.text)}</code>`, prose(a.description || '')]);
  const properties = d.members.filter((m) => m.kind === 'field' && !COMMON.properties.has(m.name)).map((m) => [m.name, `<code>${escape(m.type ? m.type.text : '')}</code>`, prose(m.description || '')]);
  const methods = d.members.filter((m) => m.kind === 'method').map((m) => [m.name, `<code>${escape((m.type && m.type.text) || m.signature || '')}</code>`, prose(m.description || '')]);
  const events = d.events.map((e) => [e.name, `<code>${escape(e.type.text)}</code>`, prose(e.description || '')]);
  const parts = own(d.cssParts, COMMON.parts).map((p) => [p.name, prose(p.description || '')]);
  return `<section class="pair wide" id="${tag}">
<div class="prose">
<h2><code>&lt;${tag}&gt;</code></h2>
<p data-input="the element's summary in web/src/kit/manifest.js">${prose(d.description)}</p>
<pre class="snippet" aria-label="HTML for &lt;${tag}&gt;"><code>${escape(example)}</code></pre>
</div>
<div class="figure">
${liveExample(tag, example)}
</div>
<div class="prose" data-input="the element's declared surface (web/src/kit/manifest.js)">
${table(`Attributes of &lt;${tag}&gt; (besides those every element has)`, ['attribute', 'type', 'what it does'], attributes)}
${table(`Properties of &lt;${tag}&gt;`, ['property', 'type', 'what it holds'], properties)}
${table(`Methods of &lt;${tag}&gt;`, ['method', 'signature', 'what it does'], methods)}
${table(`Events of &lt;${tag}&gt;`, ['event', 'type', 'when'], events)}
${table(`Parts of &lt;${tag}&gt; (for ::part(), besides those every element has)`, ['part', 'what it is'], parts)}
</div>
</section>`;
}

let COMMON = null;

/** The page's fragment, in build-site's form (a title comment, then HTML). */
function elementsFragment() {
  const cem = customElementsManifest();
  const declarations = cem.modules.flatMap((m) => m.declarations).filter((d) => d.customElement);
  const first = declarations[0];
  // What every element has is said once, at the top: the attributes, parts and CSS properties all share.
  const shared = (list) => list.filter((x) => declarations.every((d) => (d[list === first.attributes ? 'attributes' : 'cssParts'] || []).some((y) => y.name === x.name)));
  const commonAttributes = shared(first.attributes);
  const commonParts = shared(first.cssParts);
  COMMON = { attributes: new Set(commonAttributes.map((a) => a.name)), properties: new Set(commonAttributes.map((a) => a.fieldName || a.name)), parts: new Set(commonParts.map((p) => p.name)) };
  const toc = declarations.map((d) => `<li><a href="#${d.tagName}"><code>&lt;${d.tagName}&gt;</code></a></li>`).join('\n');
  return `<!-- title: Element reference -->
<h1>Element reference</h1>
<p class="lede">Every element of the kit with a live example, the HTML to copy, and its attributes, properties, events and parts, generated from the kit's <code>custom-elements.json</code>. Add <code>&lt;script src="attention-lab.js"&gt;&lt;/script&gt;</code> to the page once; <code>&lt;model-attention model&gt;</code> also needs <code>attention-lab-model.js</code> after it.</p>
<nav aria-label="Elements" class="reference-toc"><ul>
${toc}
</ul></nav>
<section class="pair wide" id="every-element">
<div class="prose" data-input="the element's declared surface (web/src/kit/manifest.js)">
<h2>What every element has</h2>
${table('Attributes of every element', ['attribute', 'type', 'what it does'], commonAttributes.map((a) => [a.name, `<code>${escape(a.type.text)}</code>`, prose(a.description || '')]))}
${table('Events of every element (they bubble, so a page can listen once on document)', ['event', 'type', 'when'], first.events.filter((e) => declarations.every((d) => d.events.some((x) => x.name === e.name))).map((e) => [e.name, `<code>CustomEvent</code>`, prose(e.description || '')]))}
${table('Parts of every element (for ::part())', ['part', 'what it is'], commonParts.map((p) => [p.name, prose(p.description || '')]))}
${table('CSS custom properties (set them on the element or any ancestor)', ['property', 'what it sets'], first.cssProperties.map((p) => [p.name, prose(p.description || '')]))}
</div>
</section>
${declarations.map(elementSection).join('\n')}
`;
}

module.exports = { elementsFragment };
