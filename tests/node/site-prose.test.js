'use strict';
// The lesson pages' prose against their own layout: a figure sits beside its text only on a
// wide screen (site.css: .pair has two columns from 64rem) and after it on anything narrower,
// so a sentence that locates a widget by the layout ("beside this text", "on the right") is
// false at one width or the other. The prose names the widget instead.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const site = path.resolve(__dirname, '..', '..', 'web', 'site');
const PAGES = fs.readdirSync(site).filter((f) => f.endsWith('.html')).sort();

// Where a widget is, said by where the page puts it (each caught a sentence of the lessons).
const LAYOUT = [
  /\bbeside (?:this|the|its|their) (?:text|paragraphs?)\b/i,
  /\b(?:widget|diagram|lab|stepper|heatmap|tracer|demo|example|calculator|chart|measurement)s? (?:beside|next to|alongside) (?:this|the|them|it)\b/i,
  /\b(?:text|widget|diagram|lab|stepper|heatmap|tracer|demo|figure)s? (?:is |are )?(?:on|to) the (?:right|left)\b/i,
  /\b(?:on|for) a phone\b/i,
  /\b(?:widget|diagram|lab|stepper|heatmap|tracer|demo|example|calculator|chart|measurement)s? (?:below|under|above|over) (?:it|them)\b/i,
  /\b(?:widget|diagram|lab|stepper|heatmap|tracer|demo|example|calculator)s? (?:above|below) (?:this|the) text\b/i,
];

/** The readable text of a page: prose only, without code listings, comments and tags. */
function prose(html) {
  return html.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<pre[\s\S]*?<\/pre>/g, ' ').replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z]+;/g, ' ').replace(/\s+/g, ' ');
}

test('the lesson pages find a widget by its name, never by where the layout puts it (beside on a wide screen, below on a narrow one)', () => {
  assert.ok(PAGES.includes('index.html') && PAGES.includes('lesson-1.html') && PAGES.includes('lesson-5.html'), PAGES.join(', '));
  const found = [];
  for (const page of PAGES) {
    const text = prose(fs.readFileSync(path.join(site, page), 'utf8'));
    for (const sentence of text.split(/(?<=[.!?:])\s+/)) {
      const hit = LAYOUT.find((re) => re.test(sentence));
      if (hit) found.push(`${page}: "${sentence.trim().slice(0, 140)}" (${hit})`);
    }
  }
  assert.deepEqual(found, []);
});

test('the layout phrases are caught where they appear, and semantic uses of the same words are not', () => {
  const caught = (s) => LAYOUT.some((re) => re.test(s));
  for (const s of ['The diagram beside this text walks through it.', 'Predict with the small widget beside this text (below it on a phone).',
    'Read the text on the left; the widget on the right belongs to it.', 'The calculator under it counts the bytes.',
    'The stepper beside the text runs the same loop.']) assert.ok(caught(s), s);
  for (const s of ['Each bug is run beside the correct computation.', 'A batch row padded on the left and decoded under a causal mask.',
    'Every cell to the right of the diagonal is masked.', 'The line under the heatmap lists the weights.']) assert.ok(!caught(s), s);
});

test('lesson 4 states how tiled traffic depends on the fast memory, and what a KV cache saves, with the sources named', () => {
  const text = prose(fs.readFileSync(path.join(site, 'lesson-4.html'), 'utf8'));
  // Not "half as many": that holds for one block size at d = 64 only.
  assert.doesNotMatch(text, /half as many/);
  assert.match(text, /\\Theta\(N d \+ N\^2\)\\\) reads and writes of slow memory for the standard method and \\\(\\Theta\(N\^2 d\^2 \/ M\)\\\) for the tiled one/);
  assert.match(text, /about nine times less traffic/);
  assert.match(text, /\(Dao and colleagues, 2022 ?, the FlashAttention paper\)/);
  // The cache saves recomputing the network over the prefix, not only attention's scores.
  assert.match(text, /every step runs the whole network over the prefix again/);
  assert.match(text, /Those counts are attention's own, in one layer\./);
  assert.match(text, /\(Kaplan and colleagues, 2020 ?, count the forward pass this way\)/);
});
