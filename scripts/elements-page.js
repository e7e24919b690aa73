'use strict';
// The element reference page of the built site (dist/elements.html): for each element, what
// custom-elements.json says of it (scripts/manifest.js customElementsManifest, the same
// object the build writes there: its description, attributes, properties, events, parts and
// CSS custom properties), a live example and the example's HTML to copy (the manifest's
// `example`). build-site.js lays it out like a lesson; tests/browser/site.test.js,
// touch.test.js and facts.test.js open it as they open the lessons.

const fs = require('fs');
const path = require('path');
const { customElementsManifest } = require('./manifest.js');
const { WIDGETS } = require('../web/src/kit/manifest.js');

// Real pretrained attention (web/site/data, written by scripts/real-attention.js), pasted inline.
const DATA = path.join(__dirname, '..', 'web', 'site', 'data');

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

/** A number in the prose that tests/browser/real-attention.test.js checks against the data. */
const real = (id, text) => `<span data-input="measured in the file; checked by tests/browser/real-attention.test.js" data-real="${id}">${text}</span>`;

/** A number that is a name or a reader's input, not a measurement (GPT-2's 2). */
const name = (text, why = 'a name') => `<span data-input="${why}">${text}</span>`;

/** The element with a data file pasted inline, as an author would. */
function pasted(id, file, attributes) {
  const json = fs.readFileSync(path.join(DATA, file), 'utf8').trim();
  if (/<\/script|<!--/i.test(json)) throw new Error(`elements-page: ${file} holds text that would end its script element`);
  return `<model-attention id="${id}"${attributes}>\n<script type="application/json">${json}</script>\n</model-attention>`;
}

/** GPT-2 and BERT-base, real attention pasted as authors paste theirs, and what the summary finds. */
function realSection() {
  const snippet = '<model-attention open="4.11">\n  <script type="application/json">\n    {"model": "gpt2", "sentence": "The quick brown fox jumps over the lazy dogs.", "license": "...",\n     "tokens": ["The", " quick", ...], "causal": true, "decimals": 3,\n     "attentions": [[[[1, 0, ...], ...]]]}\n  </script>\n</model-attention>';
  const gpt2 = name('GPT-2');
  return `<section class="pair wide" id="real-attention">
<div class="prose">
<h2>Real attention: ${gpt2} and BERT</h2>
<p>What two pretrained models attend to, pasted as JSON the way an author pastes their own: ${gpt2} small reading one sentence, and BERT base reading a sentence pair. The numbers were computed in the example notebooks of BertViz (${name('Apache-2.0', 'a licence\'s name')}; <code>web/site/data/README.md</code> has the provenance and the licences) and rounded to ${real('decimals', '3')} decimals. Keys the element does not use (<code>model</code>, <code>sentence</code>, <code>source</code>, <code>license</code>) are kept and shown under the views.</p>
<p>In ${gpt2}, layer ${real('gpt2-prev-layer', '4')} head ${real('gpt2-prev-head', '11')} is a previous-token head: sort the summary by <em>previous token</em> and it comes first, at ${real('gpt2-prev', '1.00')}. Deeper layers put more weight on the first token: the mean first-token score is ${real('gpt2-first-0', '0.30')} in layer ${real('gpt2-first-0-layer', '0')} and ${real('gpt2-first-9', '0.84')} in layer ${real('gpt2-first-9-layer', '9')}.</p>
<p>BERT reads in both directions, so prefix matching (a test for induction, which looks back only) does not apply and the summary says so; a next-token score does. From layer ${real('bert-sep-from', '4')} on, ${real('bert-sep-count', '85')} of the ${real('bert-sep-of', '96')} heads put over half their weight on [SEP] (filter the summary by <em>special tokens</em> at least ${name('0.5', "the filter's value")}), against ${real('bert-sep-early', '2')} of the ${real('bert-sep-early-of', '48')} heads before it. In layer ${real('bert-next-layer', '2')}, heads ${real('bert-next-heads', '0 and 9')} look at the next token (${real('bert-next', '0.86')}). The head view's filter shows attention from one sentence to the other, as BertViz's does.</p>
<pre class="snippet" aria-label="HTML for pasted attention"><code>${escape(snippet)}</code></pre>
</div>
<div class="figure">
${pasted('example-gpt2', 'gpt2-quick-brown-fox.json', ' open="4.11"')}
${pasted('example-bert', 'bert-cat-mat.json', ' view="summary"')}
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
  const toc = declarations.map((d) => `<li><a href="#${d.tagName}"><code>&lt;${d.tagName}&gt;</code></a></li>${d.tagName === 'model-attention' ? '\n<li><a href="#real-attention">Real attention: GPT-2 and BERT</a></li>' : ''}`).join('\n');
  return `<!-- title: Element reference -->
<h1>Element reference</h1>
<p class="lede">Every element of the kit with a live example, the HTML to copy, and its attributes, properties, events and parts, generated from the kit's <code>custom-elements.json</code>. Add <code>&lt;script src="attention-lab.js"&gt;&lt;/script&gt;</code> to the page once; <code>&lt;model-attention model&gt;</code> also needs <code>attention-lab-model.js</code> beside it, which the kit fetches when that element comes near.</p>
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
${declarations.map((d) => `${elementSection(d)}${d.tagName === 'model-attention' ? `\n${realSection()}` : ''}`).join('\n')}
`;
}

module.exports = { elementsFragment };
