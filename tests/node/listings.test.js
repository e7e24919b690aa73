'use strict';
// The code listings on the lesson pages state numbers in their comments
// ("# W[1] ≈ [0.0088, ...]"). This test reads each listing from the built pages, takes its
// inputs from the code itself (array literals, sizes, torch.randn shapes), runs the
// JavaScript API on the same inputs and checks every claimed number to the digits printed.
// The Python is not executed here, except lesson 7's export listing, which runs with a
// stand-in for transformers and torch that returns GPT-2's saved attention, and lesson 8's
// RoPE and ALiBi listing, which runs with Debian's python3 and NumPy (the last two tests).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadAttentionLab } = require('./lab.js');
const { PAGES } = require('../../scripts/build-site.js');
const { scenario } = require('../../web/src/ui/mistake-lab.js');
const { source } = require('../../scripts/lesson-fixture.js');

const dist = path.resolve(__dirname, '..', '..', 'dist');

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

function readListings() {
  const out = [];
  for (const { file } of PAGES) {
    const html = fs.readFileSync(path.join(dist, file), 'utf8');
    for (const m of html.matchAll(/<pre class="listing" data-listing="([^"]+)"[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)) {
      out.push({ file, id: m[1], code: unescape(m[2]) });
    }
  }
  return out;
}

/** Sizes (`n, d = 6, 8`), array literals (`np.array([...])`, `torch.tensor([...])`) and `torch.randn(...)` shapes. */
function parseInputs(code) {
  const sizes = {};
  for (const m of code.matchAll(/^(\w+(?:\s*,\s*\w+)*)\s*=\s*(\d+(?:\s*,\s*\d+)*)\s*$/gm)) {
    const names = m[1].split(/\s*,\s*/);
    const values = m[2].split(/\s*,\s*/).map(Number);
    names.forEach((name, i) => { sizes[name] = values[i]; });
  }
  const arrays = {};
  for (const m of code.matchAll(/^(\w+)\s*=\s*(?:np\.array|torch\.tensor)\(/gm)) {
    // The literal may span lines with a comment on each; read it up to its closing bracket.
    const rest = code.slice(m.index + m[0].length).replace(/#[^\n]*/g, '');
    let depth = 0;
    let end = 0;
    for (; end < rest.length; end += 1) {
      if (rest[end] === '[') depth += 1;
      if (rest[end] === ']' && --depth === 0) break;
    }
    arrays[m[1]] = JSON.parse(rest.slice(0, end + 1).replace(/(\d)\.(?!\d)/g, '$1.0'));
  }
  const random = {};
  for (const m of code.matchAll(/^(\w+)\s*=\s*torch\.randn\(([^)]*)\)/gm)) {
    random[m[1]] = m[2].split(',').map((s) => s.trim()).map((s) => (/^\d+$/.test(s) ? Number(s) : sizes[s]));
    assert.ok(random[m[1]].every(Number.isInteger), `torch.randn(${m[2]}) has sizes this test can resolve`);
  }
  // Calls with keyword arguments: `out, lse = online_row(row=1, block=2)`.
  const calls = {};
  for (const m of code.matchAll(/^(\w+(?:\s*,\s*\w+)*)\s*=\s*(\w+)\(((?:\s*\w+=\d+\s*,?)*)\)\s*$/gm)) {
    const args = Object.fromEntries(m[3].split(',').map((a) => a.trim()).filter(Boolean).map((a) => a.split('=')).map(([k, v]) => [k, Number(v)]));
    (calls[m[2]] = calls[m[2]] || []).push({ names: m[1].split(/\s*,\s*/), args });
  }
  return { sizes, arrays, random, calls };
}

/** Comment claims: "# name = value" or "# name ≈ value", where value is a number, a list or a tuple. */
function parseClaims(code) {
  const claims = [];
  for (const line of code.split('\n')) {
    const hash = line.indexOf('#');
    if (hash < 0) continue;
    const m = line.slice(hash + 1).match(/^\s*(.+?)\s*(=|≈)\s*([[(]?-?\d[\d.,\s\-[\]()]*)$/);
    if (!m) continue;
    const numbers = m[3].match(/-?\d+(?:\.\d+)?/g);
    claims.push({ name: m[1], approx: m[2] === '≈', numbers, text: line.trim() });
  }
  return claims;
}

const flat = (t) => Array.from(t.data !== undefined ? t.data : t.flat(Infinity));
const row = (t, i) => t.toArray()[i];
const rowSums = (t) => t.toArray().map((r) => r.reduce((a, b) => a + b, 0));

function sameAsExample(inputs, example, names) {
  for (const [listingName, exampleName] of Object.entries(names)) {
    assert.deepEqual(flat(inputs.arrays[listingName]).map(Math.fround), flat(example[exampleName]),
      `the listing's ${listingName} is the widget's ${exampleName}`);
  }
}

/** What each listing computes, from its own inputs, by the engine. */
const COMPUTE = {
  'time-flies-numpy'(lab, inp) {
    sameAsExample(inp, lab.examples().timeFlies, { Q: 'Q', K: 'K', V: 'V' });
    const { Q, K, V } = inp.arrays;
    const r = lab.attention(Q, K, V);
    const unscaled = lab.attention(Q, K, V, { scaling: 'none' });
    return { 'S[1]': row(r.scores, 1), 'W[1]': row(r.weights, 1), 'W.sum(axis=-1)': rowSums(r.weights), 'out[1]': row(r.output, 1), 'softmax(S[1])': row(unscaled.weights, 1) };
  },
  'worked-numpy'(lab, inp) {
    const ex = lab.examples().worked;
    assert.deepEqual(inp.arrays.q, ex.Q.toArray()[0], "the listing's q is the worked example's query");
    sameAsExample(inp, ex, { K: 'K', V: 'V' });
    const r = lab.explainRow([inp.arrays.q], inp.arrays.K, inp.arrays.V, 0);
    return { scores: r.scores, scaled: r.scaled, e: r.expRaw, total: r.sumRaw, weights: r.weights, output: r.output };
  },
  'causal-torch'(lab, inp) {
    sameAsExample(inp, lab.examples().timeFlies, { Q: 'Q', K: 'K', V: 'V' });
    const r = lab.attention(inp.arrays.Q, inp.arrays.K, inp.arrays.V, { causal: true });
    return { 'W[0]': row(r.weights, 0), 'W[1]': row(r.weights, 1) };
  },
  'padding-torch'(lab, inp) {
    sameAsExample(inp, lab.examples().timeFlies, { Q: 'Q', K: 'K', V: 'V' });
    const r = lab.attention(inp.arrays.Q, inp.arrays.K, inp.arrays.V, { validLens: inp.sizes.valid_len });
    return { 'W[0]': row(r.weights, 0), 'W[1]': row(r.weights, 1) };
  },
  'heads-torch'(lab, inp, code) {
    const { n, d_model: d, h } = inp.sizes;
    // The listing draws its inputs as <multihead-view> does (web/src/elements/multihead-view.js:
    // X with the seed, 6 tokens x d_model 8; Wq, Wk, Wv, Wo with seed + 1.. + 4 and stddev 0.6),
    // with the engine's generator written out in Python: its constants are random.cpp's.
    const WIDGET_SEED = 7;
    assert.deepEqual([n, d], [6, 8], "the widget's six tokens and d_model");
    assert.match(code, new RegExp(`^X = randn\\(n, d_model, seed=${WIDGET_SEED}\\)$`, 'm'), "X is the widget's, seeded");
    assert.match(code, new RegExp(`^Wq, Wk, Wv, Wo = \\(randn\\(d_model, d_model, seed=${WIDGET_SEED + 1} \\+ i, std=0\\.6\\)\\s+for i in range\\(4\\)\\)$`, 'm'),
      "the projections are the widget's, seeded");
    assert.doesNotMatch(code, /torch\.randn/, 'nothing unseeded');
    const engine = fs.readFileSync(path.join(__dirname, '..', '..', 'cpp', 'src', 'random.cpp'), 'utf8');
    const constants = (text) => (text.match(/0x[0-9A-F]{16}/gi) || []).map((c) => c.toUpperCase());
    assert.deepEqual(constants(code), constants(engine), "the listing's splitmix64 constants are the engine's");
    const X = lab.randomNormal({ shape: [n, d], seed: WIDGET_SEED });
    const [Wq, Wk, Wv, Wo] = [1, 2, 3, 4].map((i) => lab.randomNormal({ shape: [d, d], seed: WIDGET_SEED + i, stddev: 0.6 }));
    const batched = lab.multiHeadAttention({ X, Wq, Wk, Wv, Wo, heads: h, method: 'batched' });
    const loop = lab.multiHeadAttention({ X, Wq, Wk, Wv, Wo, heads: h, method: 'loop' });
    assert.ok(lab.maxAbsDiff(batched.output, loop.output) < 1e-5, 'loop and batched agree, as the listing says');
    const first = row(batched.output, 0);
    return { 'o.shape': batched.headOutputs.shape, 'batched.shape': batched.output.shape, 'batched[0, :4]': first.slice(0, 4), 'batched[0, 4:]': first.slice(4) };
  },
  'cross-torch'(lab, inp) {
    const [Q, K, V] = ['Q', 'K', 'V'].map((name, i) => lab.randomNormal({ shape: inp.random[name], seed: i + 1 }));
    const r = lab.attention(Q, K, V);
    return { 'W.shape': r.weights.shape, 'out.shape': r.output.shape };
  },
  'mask-after-numpy'(lab, inp) {
    sameAsExample(inp, lab.examples().timeFlies, { Q: 'Q', K: 'K', V: 'V' });
    const r = lab.mistake('mask-after-softmax', { Q: inp.arrays.Q, K: inp.arrays.K, V: inp.arrays.V, causal: true });
    return { 'W_bad.sum(axis=-1)': rowSums(r.mistaken.weights), 'W.sum(axis=-1)': rowSums(r.correct.weights) };
  },
  'fp16-numpy'(lab, inp) {
    // The widget's inputs for this mistake: the example's first tokens after two zero pad rows.
    const sc = scenario('fp16-mask-fill', lab.examples().timeFlies);
    for (const name of ['Q', 'K', 'V']) assert.deepEqual(flat(inp.arrays[name]).map(Math.fround), flat(sc.spec[name]).map(Math.fround), `the listing's ${name} is the widget's`);
    assert.equal(inp.sizes.pads, sc.tokens.filter((t) => t === '<pad>').length);
    const r = lab.mistake('fp16-mask-fill', sc.spec);
    return { 'np.isnan(W_bad).sum()': r.figures[0].value, 'np.isnan(W).sum()': r.figures[0].correctValue };
  },
  'batch-torch'(lab, inp) {
    const [Q, K, V] = ['Q', 'K', 'V'].map((name, i) => lab.randomNormal({ shape: inp.random[name], seed: i + 1 }));
    const r = lab.attention(Q, K, V);
    return { 'W.shape': r.weights.shape, 'A.shape': r.output.shape };
  },
  'online-numpy'(lab, inp) {
    sameAsExample(inp, lab.examples().timeFlies, { Q: 'Q', K: 'K', V: 'V' });
    const out = {};
    for (const call of inp.calls.online_row) {
      const e = lab.explainOnlineSoftmax(inp.arrays.Q, inp.arrays.K, inp.arrays.V, call.args.row, { block: call.args.block, window: call.args.window });
      assert.ok(lab.maxAbsDiff(lab.tensor([e.output]), lab.tensor([e.fullOutput])) < 1e-5, 'the online result is ordinary attention');
      [out[call.names[0]], out[call.names[1]]] = [e.output, e.lse];
    }
    return out;
  },
  'kv-decode-numpy'(lab, inp) {
    sameAsExample(inp, lab.examples().timeFlies, { Q: 'Q', K: 'K', V: 'V' });
    const { Q, K, V } = inp.arrays;
    const cache = lab.createKVCache({ heads: 1, dHead: K[0].length, maxLength: Q.length });
    let out;
    for (let t = 0; t < Q.length; t++) {
      cache.append([K[t]], [V[t]]);
      out = cache.attend([Q[t]]).output;
    }
    cache.dispose();
    const causal = lab.attention(Q, K, V, { causal: true }).output;
    assert.ok(lab.maxAbsDiff(out, lab.tensor([row(causal, Q.length - 1)])) < 1e-6, 'the last step equals the last row of causal attention');
    return { out_t: out };
  },
  'trainer-torch'(lab, inp) {
    const { vocab, seq_len: seqLen, d_model: dModel, heads, layers, batch } = inp.sizes;
    const t = lab.createTrainer({ vocab, seqLen, dModel, heads, layers, batch });
    try {
      return { n_params: t.memory.parameters, 'math.log(vocab)': t.uniformLoss, 'patterns[1].shape': [batch, ...t.attention(t.example).patterns.shape.slice(1)] };
    } finally {
      t.dispose();
    }
  },
  'hf-attention-json'(lab, inp, code) {
    // The listing writes GPT-2's saved attention (tests/fixtures/real-attention, the page's example) to 3
    // decimals; its claims are the saved file's shape and a row, as Python's round() prints them.
    const saved = source();
    assert.match(code, new RegExp(`^sentence = ${JSON.stringify(saved.sentence).replace(/[.]/g, '\\.')}$`, 'm'), "the listing's sentence is the saved one");
    const rows = lab.headSummary(saved.attentions, { tokens: saved.tokens, causal: true });
    const best = rows.reduce((a, b) => (b.previousToken > a.previousToken ? b : a));
    assert.deepEqual([best.layer, best.head], [4, 11], 'the row printed is from the best previous-token head');
    return { 'n, layers, heads': [saved.tokens.length, saved.attentions.length, saved.attentions[0].length],
      'attentions[4][11][9]': saved.attentions[4][11][9].map((w) => Math.round(w * 1000) / 1000) };
  },
  'positions-numpy'(lab, inp) {
    // Lesson 8: the listing's q and k under RoPE at positions (3, 1) and (10, 8), both layouts, and
    // ALiBi's slopes and weights, each from the engine (lab.attention's rope and alibi, lab.positions).
    const { ropeScore, alibiWeights } = require('./order-lesson.js');
    const { q, k } = inp.arrays;
    const { d, base } = inp.sizes;
    assert.equal(q.length, d);
    assert.equal(base, 10000, "the engine's default base, which the lesson's numbers use");
    const order = [...q.keys()].filter((i) => i % 2 === 0).concat([...q.keys()].filter((i) => i % 2 === 1));
    const w = alibiWeights(lab, 8, 0, 11)[10];
    return {
      'q @ k': lab.attention([q], [k], [k]).scores.toArray()[0][0],
      'interleaved (3, 1), (10, 8)': [ropeScore(lab, 3, 1, 'interleaved', q, k), ropeScore(lab, 10, 8, 'interleaved', q, k)],
      'half-split (3, 1)': ropeScore(lab, 3, 1, 'half', q, k),
      'half-split, reordered (3, 1)': ropeScore(lab, 3, 1, 'half', order.map((i) => q[i]), order.map((i) => k[i])),
      'alibi_slopes(8) * 256': Array.from(lab.positions({ kind: 'alibi', heads: 8 }).data, (m) => m * 256),
      'w[10, 10] / w[10, 0]': w[10] / w[0],
    };
  },
  'kv-bytes-python'(lab, inp) {
    const { layers, heads, kv_heads: kvHeads, d_head: dHead, tokens } = inp.sizes;
    const bytes = (kv) => lab.kvCacheBytes({ layers, kvHeads: kv, dHead, dtype: 'float16', tokens }).bytes;
    return { mha: bytes(heads), gqa: bytes(kvHeads) };
  },
};

let lab;
const listings = readListings();
test.before(async () => { lab = await loadAttentionLab(); });

test('every listing on the pages is one this test knows, and every known listing is on a page', () => {
  assert.deepEqual(listings.map((l) => l.id).sort(), Object.keys(COMPUTE).sort());
});

for (const listing of listings) {
  test(`${listing.file} listing "${listing.id}": every number its comments claim is what the engine computes`, () => {
    const claims = parseClaims(listing.code);
    assert.ok(claims.length > 0, 'the listing states at least one result');
    const actual = COMPUTE[listing.id](lab, parseInputs(listing.code), listing.code);
    for (const c of claims) {
      assert.ok(c.name in actual, `"${c.text}" names ${c.name}, which this test does not compute`);
      const got = flat(Array.isArray(actual[c.name]) || actual[c.name].data ? actual[c.name] : [actual[c.name]]);
      assert.equal(c.numbers.length, got.length, `"${c.text}" states ${c.numbers.length} numbers; the engine has ${got.length}`);
      c.numbers.forEach((s, i) => {
        const decimals = (s.split('.')[1] || '').length;
        // An exact claim ("=") of a rounded-looking value must be exact up to float32 rounding.
        const tol = (c.approx ? 0.5 * 10 ** -decimals : 0) + 1e-6 * Math.max(1, Math.abs(got[i]));
        assert.ok(Math.abs(Number(s) - got[i]) <= tol, `"${c.text}": entry ${i} is ${got[i]}, not ${s}`);
      });
    }
  });
}

test("lesson 4's online softmax in NumPy guards a fully masked block before exp(m - m_new), and shows a row whose first block is one", async () => {
  const listing = listings.find((l) => l.id === 'online-numpy');
  const lines = listing.code.split('\n');
  const rescale = lines.findIndex((l) => /np\.exp\(m - m_new\)/.test(l));
  const guard = lines.findIndex((l) => /^\s*if m_new == -np\.inf:\s*$/.test(l));
  assert.ok(rescale > 0, 'the listing rescales with np.exp(m - m_new)');
  assert.ok(guard > 0 && guard < rescale, 'a block whose every key so far is masked is skipped before exp(-inf - (-inf)) can make NaN');
  assert.match(lines.slice(guard + 1, rescale).join('\n'), /^\s*continue\s*$/m, 'the guard skips the block');
  // One of the rows the listing runs starts with a block the engine skips as fully masked.
  const { calls, arrays } = parseInputs(listing.code);
  const firstSkipped = calls.online_row.filter((c) => c.args.window !== undefined).map((c) =>
    lab.explainOnlineSoftmax(arrays.Q, arrays.K, arrays.V, c.args.row, { block: c.args.block, window: c.args.window }).blocks[0].skipped);
  assert.deepEqual(firstSkipped, [true]);
});

test('the claim parser reads names, lists, tuples and approximate values, and skips prose comments', () => {
  const claims = parseClaims('x = 1   # W[1] ≈ [0.25, -1.5]\nprint(o.shape)   # o.shape = (2, 6, 4)\n# key j visible when j <= i\n# True = may attend');
  assert.deepEqual(claims.map((c) => [c.name, c.approx, c.numbers]), [['W[1]', true, ['0.25', '-1.5']], ['o.shape', false, ['2', '6', '4']]]);
});

test("lesson 7's export listing, run by python3 with a stand-in model that returns GPT-2's saved attention, prints its claims and writes JSON the engine accepts", async () => {
  const { spawnSync } = require('child_process');
  const os = require('os');
  const listing = listings.find((l) => l.id === 'hf-attention-json');
  const saved = source();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-listing-'));
  try {
    // Only what the listing calls: from_pretrained, the tokenizer and its decode, the model's
    // forward with output_attentions, tensors' [0] and tolist(), torch.no_grad().
    fs.writeFileSync(path.join(dir, 'torch.py'), 'import contextlib\ndef no_grad():\n    return contextlib.nullcontext()\n');
    fs.writeFileSync(path.join(dir, 'transformers.py'), `import json, os
SAVED = json.load(open(os.environ["AL_SAVED"]))
class Tensor:
    def __init__(self, v): self.v = v
    def __getitem__(self, i): return Tensor(self.v[i])
    def tolist(self): return self.v
class Tokenizer:
    def __call__(self, text, return_tensors=None):
        assert text == SAVED["sentence"] and return_tensors == "pt", (text, return_tensors)
        return {"input_ids": Tensor([[100 + k for k in range(len(SAVED["tokens"]))]])}
    def decode(self, ids):
        return "".join(SAVED["tokens"][i - 100] for i in ids)
class Output:
    def __init__(self, attentions): self.attentions = attentions
class Model:
    def __call__(self, input_ids=None, output_attentions=False):
        assert output_attentions is True and input_ids.v[0][0] == 100
        return Output(tuple(Tensor([layer]) for layer in SAVED["attentions"]))
class AutoTokenizer:
    @staticmethod
    def from_pretrained(name):
        assert name == "gpt2", name
        return Tokenizer()
class AutoModel:
    @staticmethod
    def from_pretrained(name, attn_implementation=None):
        assert name == "gpt2" and attn_implementation == "eager", (name, attn_implementation)
        return Model()
`);
    fs.writeFileSync(path.join(dir, 'listing.py'), listing.code);
    const run = spawnSync('python3', ['listing.py'], { cwd: dir, encoding: 'utf8', env: { ...process.env, PYTHONPATH: dir, AL_SAVED: path.resolve(__dirname, '..', '..', 'web', 'site', 'data', 'gpt2-quick-brown-fox.json') }, timeout: 60000 });
    assert.equal(run.status, 0, `python3 listing.py: ${run.error || run.stderr}`);
    // What it prints is what its comments claim (the claims' own check is the test above).
    const claimed = parseClaims(listing.code).map((c) => c.numbers.map(Number));
    const printed = run.stdout.trim().split('\n').map((line) => line.match(/-?\d+(?:\.\d+)?/g).map(Number));
    assert.deepEqual(printed, claimed);
    const data = JSON.parse(fs.readFileSync(path.join(dir, 'gpt2-attention.json'), 'utf8'));
    assert.deepEqual(Object.keys(data).sort(), ['attentions', 'causal', 'decimals', 'tokens']);
    assert.deepEqual(data.tokens, saved.tokens);
    assert.equal(data.causal, true);
    let worst = 0;
    saved.attentions.forEach((layer, l) => layer.forEach((head, h) => head.forEach((row, i) => row.forEach((w, j) => {
      worst = Math.max(worst, Math.abs(data.attentions[l][h][i][j] - w));
    }))));
    assert.ok(worst <= 0.0005 + 1e-9, `[layers][heads][n][n], each weight to 3 decimals (worst ${worst})`);
    // The engine's check of pasted weights accepts it as the element would, and finds the head the listing prints.
    const rows = lab.headSummary(data.attentions, { tokens: data.tokens, causal: true, decimals: data.decimals });
    assert.equal(rows.length, 144);
    assert.ok(rows[4 * 12 + 11].previousToken > 0.99);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("lesson 8's RoPE and ALiBi listing, run by Debian's python3 with NumPy, prints what its comments claim", (t) => {
  const { spawnSync } = require('child_process');
  const os = require('os');
  // Debian's python3 (the PATH may put another first), with python3-numpy (scripts/setup.js installs it).
  const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  if (spawnSync(python, ['-c', 'import numpy'], { encoding: 'utf8' }).status !== 0) return t.skip(`${python} has no NumPy: node scripts/setup.js installs python3-numpy`);
  const listing = listings.find((l) => l.id === 'positions-numpy');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-listing-'));
  try {
    fs.writeFileSync(path.join(dir, 'listing.py'), listing.code);
    const run = spawnSync(python, ['listing.py'], { cwd: dir, encoding: 'utf8', timeout: 60000 });
    assert.equal(run.status, 0, `${python} listing.py: ${run.error || run.stderr}`);
    // Each print is followed by the comment that states it (whose numbers the test above checks against the engine).
    const claimed = parseClaims(listing.code).map((c) => c.numbers.map(Number));
    const printed = run.stdout.trim().split('\n').map((line) => line.match(/-?\d+(?:\.\d+)?/g).map(Number));
    assert.deepEqual(printed, claimed);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
