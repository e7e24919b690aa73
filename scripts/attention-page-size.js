#!/usr/bin/env node
'use strict';
// How large a page gets with a model's attention in <model-attention>: node scripts/attention-page-size.js
// For a few model shapes and sentence lengths, the characters of the `attentions` JSON in each
// form and their gzip -9 size (what a server sends compressed). The base64 forms are exact for
// any data (4 characters per 3 bytes); the 3-decimal form depends on the numbers, so it is
// measured on attention the engine makes (seeded random heads, causal for the decoders), over the
// same shape. Run after a build.

const zlib = require('zlib');
const { loadAttentionLab } = require('../index.js');
const { attentionSet, nested, base64Form } = require('../tests/node/fixtures/model-attention.js');
const { LIMITS } = require('../web/src/ui/attention-data.js');

const MODELS = [
  ['GPT-2 small', 12, 12, true],
  ['DistilGPT-2', 6, 12, true],
  ['BERT base', 12, 12, false],
  ['GPT-2 medium', 24, 16, true],
];
const LENGTHS = [32, 64, 128];

const mb = (chars) => `${(chars / 1e6).toFixed(2)} MB`;

(async () => {
  const lab = await loadAttentionLab();
  const rows = [['model (layers x heads)', 'tokens', 'float16 base64', 'gzip', '3 decimals', 'gzip', 'float32 base64', 'gzip']];
  for (const [name, layers, heads, causal] of MODELS) {
    for (const n of LENGTHS) {
      const weights = layers * heads * n * n;
      if (weights > LIMITS.weights) {
        rows.push([`${name} (${layers} x ${heads})`, n, `over the limit of ${LIMITS.weights} weights`, '', '', '', '', '']);
        continue;
      }
      const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
      const kinds = Array.from({ length: layers }, () => Array.from({ length: heads }, () => 'random'));
      const set = attentionSet(lab, { tokens, kinds, causal, seed: 7 });
      const size = (value) => {
        const text = JSON.stringify(value);
        return [mb(text.length), mb(zlib.gzipSync(text, { level: 9 }).length)];
      };
      rows.push([`${name} (${layers} x ${heads})`, n, ...size(base64Form(set, 'float16')), ...size(nested(set, 3)), ...size(base64Form(set, 'float32'))]);
    }
  }
  console.log(rows.map((r) => `| ${r.join(' | ')} |`).join('\n').replace(/\n/, `\n|${rows[0].map(() => '---').join('|')}|\n`));
})();
