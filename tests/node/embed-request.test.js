'use strict';
// The embed page's address rules (web/src/ui/embed-request.js), without a browser.
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseEmbedRequest } = require('../../web/src/ui/embed-request.js');
const { WIDGETS, attributesOf } = require('../../web/src/kit/manifest.js');

test('a declared widget and attributes become the tag and setAttribute pairs, URL state off by default', () => {
  assert.deepEqual(parseEmbedRequest('?widget=attention-heatmap&tokens=the+cat+sat&causal=1'), {
    tag: 'attention-heatmap',
    attributes: [['tokens', 'the cat sat'], ['causal', '1'], ['url-state', 'off']],
  });
  assert.deepEqual(parseEmbedRequest('?widget=shape-tracer&d-model=512&url-state=on').attributes, [['d-model', '512'], ['url-state', 'on']]);
});

test('every widget in the manifest can be embedded with each of its declared attributes', () => {
  for (const tag of Object.keys(WIDGETS)) {
    for (const { name } of attributesOf(tag)) {
      const r = parseEmbedRequest(`?widget=${tag}&${name}=x`);
      assert.equal(r.error, undefined, `${tag} ${name}`);
      assert.deepEqual(r.attributes[0], [name, 'x']);
    }
  }
});

test('values stay text: markup and percent escapes arrive as the same string', () => {
  const hostile = '<script>alert(1)</script> "q" & %zz';
  const r = parseEmbedRequest(`?widget=attention-heatmap&tokens=${encodeURIComponent(hostile)}`);
  assert.deepEqual(r.attributes[0], ['tokens', hostile]);
  assert.deepEqual(parseEmbedRequest('?widget=attention-heatmap&tokens=100%').attributes[0], ['tokens', '100%']);
});

test('a missing, repeated or unknown widget is an error naming what is expected', () => {
  const list = Object.keys(WIDGETS).join(', ');
  assert.equal(parseEmbedRequest('').error, `embed.html: the address needs exactly one ?widget=<name>; expected one of ${list}`);
  assert.equal(parseEmbedRequest('?widget=a&widget=b').error, `embed.html: the address needs exactly one ?widget=<name>; expected one of ${list}`);
  assert.equal(parseEmbedRequest('?widget=toString').error, `embed.html: there is no widget called "toString"; expected one of ${list}`);
  assert.equal(parseEmbedRequest(`?widget=${'x'.repeat(5000)}`).error,
    `embed.html: there is no widget called "${'x'.repeat(40)}\u2026"; expected one of ${list}`);
});

test('an undeclared or repeated attribute is an error naming the widget and its attributes', () => {
  assert.equal(parseEmbedRequest('?widget=attention-heatmap&onclick=x').error,
    'embed.html: <attention-heatmap> has no attribute "onclick"; expected one of tokens, query-tokens, causal, numbers, scaling, temperature, prompt, predict, hide-rows, reveal-with, url-state, theme');
  assert.equal(parseEmbedRequest('?widget=attention-worked-example&tokens=a').error,
    'embed.html: <attention-worked-example> has no attribute "tokens"; expected one of url-state, theme');
  assert.equal(parseEmbedRequest('?widget=attention-heatmap&causal=1&causal=0').error,
    'embed.html: the attribute "causal" is given twice; keep one');
});
