'use strict';
// The size budget of the one script authors copy (see "Size" in the README): a budget, not a
// timing, so it holds on any machine. node scripts/size.js shows where the bytes go.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { SIZE_BUDGET } = require('../../scripts/size.js');
const { embeddedWasm } = require('../../scripts/bundle-plugins.js');
const { decodeEmbedded } = require('../../web/src/wasm-bytes.js');

const root = path.resolve(__dirname, '..', '..');
const script = fs.readFileSync(path.join(root, 'dist', 'attention-lab.js'));
const gzipped = (bytes) => zlib.gzipSync(bytes, { level: 9 }).length;

test(`dist/attention-lab.js stays within its budget of ${SIZE_BUDGET.script} bytes gzip -9`, () => {
  const size = gzipped(script);
  assert.ok(size <= SIZE_BUDGET.script,
    `dist/attention-lab.js is ${size} B gzip -9, over the budget of ${SIZE_BUDGET.script} B: run node scripts/size.js to see which part grew`);
});

test(`the wasm module stays within its budget of ${SIZE_BUDGET.wasm} bytes gzip -9`, () => {
  const size = gzipped(fs.readFileSync(path.join(root, 'build', 'wasm', 'attention_lab_core.wasm')));
  assert.ok(size <= SIZE_BUDGET.wasm, `the wasm is ${size} B gzip -9, over the budget of ${SIZE_BUDGET.wasm} B`);
});

test('the embedded wasm payload (zopfli gzip, base64) is in the script and decodes to the built module', async () => {
  const payload = await embeddedWasm('gzip');
  assert.ok(script.includes(payload.base64), 'the script embeds the current payload');
  const wasm = fs.readFileSync(path.join(root, 'build', 'wasm', 'attention_lab_core.wasm'));
  assert.ok(Buffer.from(await decodeEmbedded(payload)).equals(wasm));
  assert.ok(Buffer.from(payload.base64, 'base64').length < zlib.gzipSync(wasm, { level: 9 }).length,
    'the embedded gzip is smaller than zlib -9 makes it');
});

test('the script carries the manifest without its documentation, and its CSS minified', () => {
  const { WIDGETS, COMMON_ATTRIBUTES } = require('../../web/src/kit/manifest.js');
  const text = script.toString('utf8');
  for (const w of Object.values(WIDGETS)) {
    assert.ok(!text.includes(w.summary), `summary left out: ${w.summary}`);
    for (const a of w.attributes) assert.ok(text.includes(`"${a.name}"`), `attribute ${a.name} kept`);
  }
  for (const a of COMMON_ATTRIBUTES) assert.ok(!text.includes(a.description), `description left out: ${a.description}`);
  assert.ok(text.includes(':host{display:block;'), 'widget CSS is minified');
  assert.ok(!/\n\.al-frame \{/.test(text), 'no unminified CSS rule');
});
