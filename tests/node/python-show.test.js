'use strict';
// The one-call Python helper (python/attention_lab.py, issue 29 item 5), run with Debian's python3
// on the real GPT-2 and BERT fixtures: the HTML it returns embeds the weights exactly (as float32)
// and the kit as it is, and nothing fetched; given Hugging Face's tuple of [batch, heads, n, n]
// objects with .tolist() it writes the same; bad input is a ValueError naming it. Then the output
// in a notebook exported by jupyter-nbconvert (offline template), opened in headless Chromium:
// the element draws every head, opens the one asked for, and requests nothing outside the page.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');

const root = path.resolve(__dirname, '..', '..');
const fixture = (name) => path.join(root, 'tests', 'fixtures', 'real-attention', name);
const KIT = path.join(root, 'dist', 'attention-lab.js');
// Debian's python3 (the PATH may put another first)
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

function python(code, input) {
  const r = spawnSync(PYTHON, ['-c', `import sys\nsys.path.insert(0, ${JSON.stringify(path.join(root, 'python'))})\n${code}`],
    { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  return r;
}

/** The element's JSON and the inlined kit of show()'s HTML. */
function parts(html) {
  const kit = /^<div class="attention-lab-show">\n<script>([\s\S]*)<\/script>\n<model-attention([^>]*)>\n<script type="application\/json">([\s\S]*?)<\/script>\n<\/model-attention>\n<\/div>$/.exec(html);
  assert.ok(kit, 'the HTML is the kit, then the element with its JSON');
  return { kit: kit[1], attrs: kit[2], data: JSON.parse(kit[3]) };
}

function float32s(base64) {
  const b = Buffer.from(base64, 'base64');
  return Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
}

const skipWithout = (t) => {
  if (spawnSync(PYTHON, ['--version']).status !== 0) return t.skip('python3 is not installed'), true;
  if (!fs.existsSync(KIT)) return t.skip('dist/attention-lab.js is not built (node scripts/build.js)'), true;
  return false;
};

test('show() embeds the real fixtures exactly, with the kit and no network address', (t) => {
  if (skipWithout(t)) return;
  const kit = fs.readFileSync(KIT, 'utf8');
  for (const [file, open, pair] of [['gpt2-quick-brown-fox.json', [4, 11], null], ['bert-cat-mat.json', [7, 3], 8]]) {
    const f = JSON.parse(fs.readFileSync(fixture(file), 'utf8'));
    const r = python(`import json\nfrom attention_lab import show\nf = json.load(open(${JSON.stringify(fixture(file))}))\n`
      + `v = show(f["attentions"], f["tokens"], sentence_b_start=f.get("sentenceBStart"), open_head=(${open}), model=f["model"], license=f["license"])\n`
      + 'sys.stdout.write(v._repr_html_())');
    assert.equal(r.status, 0, r.stderr);
    const p = parts(r.stdout);
    assert.equal(p.kit, kit, `${file}: the kit inlined as it is`);
    assert.equal(p.attrs, ` view="model" open="${open.join('.')}"`);
    assert.deepEqual(p.data.tokens, f.tokens);
    assert.equal(p.data.causal, file.startsWith('gpt2'), 'causal found from the zeros above the diagonal');
    assert.equal(p.data.sentenceBStart, pair === null ? undefined : pair);
    assert.equal(p.data.model, f.model);
    assert.deepEqual(p.data.attentions.shape, [12, 12, f.tokens.length, f.tokens.length]);
    assert.equal(p.data.attentions.dtype, 'float32');
    const expected = f.attentions.flat(3).map(Math.fround);
    assert.deepEqual(float32s(p.data.attentions.base64), expected, `${file}: every weight as float32`);
    // nothing the page would fetch: no address outside the kit (whose only ones are XML namespaces)
    const outside = r.stdout.replace(p.kit, '');
    assert.doesNotMatch(outside, /https?:|\bsrc=|\bhref=/);
    for (const url of kit.match(/https?:\/\/[^\s"'`)]+/g)) assert.match(url, /^http:\/\/www\.w3\.org\/(2000\/svg|1998\/Math\/MathML)$/, 'only XML namespaces');
  }
});

test('Hugging Face\'s tuple of [batch, heads, n, n] tensors (duck-typed .tolist()) gives the same element', (t) => {
  if (skipWithout(t)) return;
  const file = fixture('gpt2-quick-brown-fox.json');
  const r = python(`import json
from attention_lab import show
class FakeTensor:  # what torch gives: detach(), cpu(), tolist()
    def __init__(self, x): self.x = x
    def detach(self): return self
    def cpu(self): return self
    def tolist(self): return self.x
f = json.load(open(${JSON.stringify(file)}))
other = [[[[1.0 if j == 0 else 0.0 for j in range(10)] for i in range(10)] for h in range(12)] for layer in f["attentions"]]
hf = tuple(FakeTensor([other[l], layer]) for l, layer in enumerate(f["attentions"]))
a = show(hf, FakeTensor(f["tokens"]), batch=1).html
b = show(f["attentions"], f["tokens"]).html
c = show(f["attentions"][4], f["tokens"], dtype="float16").html
sys.stdout.write(json.dumps([a == b, len(c) < len(b)]))`);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [true, true]);
});

test('bad input is a ValueError naming it', (t) => {
  if (skipWithout(t)) return;
  const cases = [
    ['show([[[1, 0], [0.5, 0.5]]], ["a"])', 'show: tokens has 1 entries but each pattern is 2 x 2; expected one token per position'],
    ['show([[[1, 0], [0.5]]], ["a", "b"])', 'show: attentions[0] is ragged: attentions[0][1] has shape [1] but attentions[0][0] has [2]'],
    ['show([[[1, 0], [0.5, float("nan")]]], ["a", "b"])', 'show: attentions has nan at flat index 3; expected finite numbers'],
    ['show([[[1, 0, 0], [0.5, 0.5, 0]]], ["a", "b", "c"])', 'show: each attention pattern is 2 x 3; expected square patterns (self-attention)'],
    ['show([[[[[1]]]]], ["a"], batch=2)', 'show: batch = 2; expected a whole number from 0 to 0 (the batch axis)'],
    ['show([[[1]]], ["a"], dtype="int8")', "show: dtype = 'int8'; expected 'float32' or 'float16'"],
    ['show([[[1]]], ["a"], view="grid")', "show: view = 'grid'; expected one of 'model', 'heads', 'summary'"],
    ['show([], ["a"])', 'show: attentions is empty; expected [layers][heads][n][n] weights'],
  ];
  for (const [call, message] of cases) {
    const r = python(`from attention_lab import show\ntry:\n    ${call}\nexcept ValueError as e:\n    sys.stdout.write(str(e))`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, message, call);
  }
  const missing = python('from attention_lab import show\ntry:\n    show([[[1]]], ["a"], kit="/nowhere/attention-lab.js")\nexcept FileNotFoundError as e:\n    sys.stdout.write(str(e))');
  assert.match(missing.stdout, /^show: kit: attention-lab\.js was not found \(looked at \/nowhere\/attention-lab\.js\); expected the path of the built script/);
});

test('in a notebook exported by jupyter-nbconvert, the element draws the heads offline, nothing fetched', async (t) => {
  if (skipWithout(t)) return;
  if (!onPath('jupyter-nbconvert')) return t.skip('jupyter-nbconvert is not installed: apt-get install jupyter-nbconvert (node scripts/setup.js --recipes)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-show-'));
  try {
    // The cell's output as Jupyter stores it after running show(): its _repr_html_ as text/html.
    // (Executing the notebook needs ipykernel, which Debian's jupyter-nbconvert does not bring.)
    const gpt2 = fixture('gpt2-quick-brown-fox.json');
    const made = python(`import json
from attention_lab import show
f = json.load(open(${JSON.stringify(gpt2)}))
v = show(f["attentions"], f["tokens"], open_head=(4, 11), view="model")
cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["show(attentions, tokens, open_head=(4, 11))"],
        "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                     "data": {"text/html": v._repr_html_(), "text/plain": repr(v)}}]}
nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
json.dump(nb, open(${JSON.stringify(path.join(dir, 'show.ipynb'))}, "w"))`);
    assert.equal(made.status, 0, made.stderr);
    const r = spawnSync('jupyter-nbconvert', ['--to', 'html', '--TemplateExporter.extra_template_basedirs=' + path.join(root, 'examples', 'jupyter', 'templates'),
      '--template', 'offline', '--no-prompt', path.join(dir, 'show.ipynb')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const page = path.join(dir, 'show.html');
    const exported = fs.readFileSync(page, 'utf8');
    assert.ok(exported.includes(fs.readFileSync(KIT, 'utf8')), 'the exported page carries the kit as it is');
    if (!fs.existsSync(process.env.CHROMIUM_PATH || '/usr/bin/chromium')) return t.skip('Chromium is not installed');
    const { launch, watchedPage } = require('../browser/browser.js');
    const browser = await launch();
    try {
      const { page: p, problems, close } = await watchedPage(browser);
      await p.goto(pathToFileURL(page).href, { timeout: 180000 });
      await p.waitForFunction(() => document.querySelector('model-attention')?.status === 'ready', null, { timeout: 180000 });
      const seen = await p.$eval('model-attention', (el) => ({
        thumbs: el.shadowRoot.querySelectorAll('.al-thumb').length,
        open: [el.state.view, el.state.layer, el.state.head],
      }));
      assert.equal(seen.thumbs, 144, '12 layers x 12 heads drawn');
      assert.deepEqual(seen.open, ['model', 4, 11], 'the head asked for is open');
      assert.deepEqual(problems, [], 'no console error and no request outside the page');
      await close();
    } finally {
      await browser.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
