'use strict';
// The README's Python function for <model-attention> (attention_json), run with python3 on
// attention the engine made, and its output read back with the widget's parser: the weights
// arrive as the same float16 (or float32) numbers. The lines that run a transformers model
// need torch and a downloaded model, which this machine has neither of.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { loadAttentionLab } = require('./lab.js');
const { parseAttentionData } = require('../../web/src/ui/attention-data.js');
const { fixtures, nested, base64Form } = require('./fixtures/model-attention.js');

const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'authors.md'), 'utf8');

function snippet() {
  const m = /<!-- snippet:attention_json:start -->\s*```python\n([\s\S]*?)```\s*<!-- snippet:attention_json:end -->/.exec(readme);
  assert.ok(m, 'docs/authors.md holds the attention_json snippet between its markers');
  return m[1];
}

test('the README\'s attention_json writes what the widget\'s parser reads: the same weights, in float16 and float32', async (t) => {
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error || python.status !== 0) {
    t.skip('python3 is not installed');
    return;
  }
  const lab = await loadAttentionLab();
  const { gpt2 } = fixtures(lab);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-snippet-'));
  try {
    const script = path.join(dir, 'run.py');
    fs.writeFileSync(script, `${snippet()}\nimport sys\nd = json.load(sys.stdin)\nprint(attention_json(d["tokens"], d["attentions"], d["causal"], sys.argv[1]))\n`);
    const input = JSON.stringify({ tokens: gpt2.tokens, attentions: nested(gpt2.attentions), causal: true });
    for (const dtype of ['float16', 'float32']) {
      const r = spawnSync('python3', [script, dtype], { input, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.deepEqual(Object.keys(out), ['tokens', 'causal', 'attentions']);
      assert.deepEqual(out.attentions.shape, gpt2.attentions.shape);
      const set = parseAttentionData('model-attention', out);
      const expected = parseAttentionData('model-attention', { tokens: gpt2.tokens, causal: true, attentions: base64Form(gpt2.attentions, dtype) });
      assert.deepEqual(Array.from(set.weights), Array.from(expected.weights), `${dtype}: every weight as our own encoder rounds it`);
      if (dtype === 'float32') assert.deepEqual(Array.from(set.weights), Array.from(gpt2.attentions.data), 'float32 is exact');
      assert.equal(lab.headSummary({ shape: out.attentions.shape, data: set.weights }, { tokens: set.tokens, causal: true }).length, 12, 'the engine accepts the weights');
    }
    const bad = spawnSync('python3', [script, 'float16'], { input: JSON.stringify({ tokens: ['a'], attentions: [[[[1, 0]]]], causal: false }), encoding: 'utf8' });
    assert.match(bad.stderr, /ValueError: attentions is not \[layers\]\[heads\]\[n\]\[n\] over these tokens/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
