'use strict';
// Lesson 8 (how attention knows word order) from its source, against the engine: every number of
// its prose is a data-fact the engine computes (tests/node/order-lesson.js) or a declared
// data-input; every data-claim holds; each question stands before its answer, which is folded
// away; the widgets are the ones agreed with their authors, with no attribute.
//
// The race's facts and claims rerun the race in the engine: each of the five schemes trained once
// (1000 steps, seed 1), about 22 s of CPU in all; race() keeps the results for every later check
// in this process. tests/browser/facts.test.js checks the built page the same way, in its own
// process, so it runs the race once more.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadAttentionLab } = require('./lab.js');
const { CLAIMS, orderFact, numbersIn, RACE, Q, K } = require('./order-lesson.js');

const FILE = path.join(__dirname, '..', '..', 'web', 'site', 'lesson-8.html');
const html = fs.readFileSync(FILE, 'utf8');

/** The page's facts (id and text), inputs and claims, read from the source. */
function read(source) {
  const facts = Array.from(source.matchAll(/<span data-fact="([^"]+)">([^<]*)<\/span>/g), (m) => ({ fact: m[1], text: m[2] }));
  const inputs = Array.from(source.matchAll(/data-input="([^"]*)"/g), (m) => m[1]);
  const claims = Array.from(source.matchAll(/data-claim="([^"]+)"/g), (m) => m[1]);
  return { facts, inputs, claims };
}

/** Numbers left in the prose once listings, facts, inputs, formulas, tags and lesson numbers are taken out. */
function strayNumbers(source) {
  const found = [];
  let s = source.replace(/^<!--[\s\S]*?-->/, '').replace(/<pre[\s\S]*?<\/pre>/g, ' ')
    .replace(/<span data-(?:fact|input)="[^"]*">[^<]*<\/span>/g, ' ');
  // Formulas may hold whole numbers only.
  s = s.replace(/\$\$([\s\S]+?)\$\$|\\\(([\s\S]+?)\\\)/g, (whole, display, inline) => {
    if (/\d\.\d/.test(display || inline)) found.push(`a decimal in a formula: ${whole}`);
    return ' ';
  });
  s = s.replace(/<[^>]+>/g, ' ').replace(/\blessons? \d\b/gi, ' ').replace(/\bGPT-2\b/g, ' ').replace(/\bfloat(?:16|32|64)\b/g, ' ');
  for (const m of s.matchAll(/[^.!?]*\d[^.!?]*/g)) found.push(m[0].trim().slice(0, 100));
  return found;
}

let lab;
test.before(async () => { lab = await loadAttentionLab(); });

test('lesson 8: every number in its prose is an engine fact, stated as the engine computes it, or a declared input', () => {
  const { facts, inputs } = read(html);
  assert.deepEqual(strayNumbers(html), [], 'numbers that are neither a data-fact nor a data-input');
  assert.ok(facts.length >= 30, `the page states the engine's numbers (${facts.length} facts)`);
  for (const { fact, text } of facts) {
    const value = orderFact(lab, fact, text);
    assert.ok(value, `${fact}: a fact of this lesson`);
    assert.deepEqual(numbersIn(text).map(Number), value, `"${text}" states ${fact}`);
  }
  for (const reason of inputs) assert.ok(reason.trim().length > 3, 'a data-input says why its number is not an engine result');
});

test('lesson 8: every claim holds in the engine, and every check belongs to a sentence of the page', () => {
  const { claims } = read(html);
  assert.equal(new Set(claims).size, claims.length, 'each claim once');
  for (const id of claims) {
    assert.ok(CLAIMS[id], `data-claim="${id}" has a check`);
    CLAIMS[id](lab);
  }
  assert.deepEqual([...claims].sort(), Object.keys(CLAIMS).sort());
});

test("lesson 8: the race's table is the engine's run with the race's settings (seed 1, 1000 steps, 2x and 4x the training length)", () => {
  assert.deepEqual({ seed: RACE.seed, steps: RACE.steps, lengths: RACE.lengths }, { seed: 1, steps: 1000, lengths: [64, 128] });
  assert.equal(lab.TRAINER_DEFAULTS.seqLen * 2, RACE.lengths[0]);
  assert.equal(lab.TRAINER_DEFAULTS.seqLen * 4, RACE.lengths[1]);
  // Each row of the table: a number where the engine found a head, "none" where it did not, "refused" where the scheme cannot read that far.
  const rows = Array.from(html.matchAll(/<tr><th scope="row">([^<]+)<\/th>(.*?)<\/tr>/g), (m) => [m[1], Array.from(m[2].matchAll(/<td>(.*?)<\/td>/g), (c) => c[1])]);
  const scheme = { 'learned table': 'learned', sinusoidal: 'sinusoidal', RoPE: 'rope', ALiBi: 'alibi', 'no positions': 'none' };
  assert.deepEqual(rows.map(([name]) => scheme[name]), ['learned', 'sinusoidal', 'rope', 'alibi', 'none']);
  const r = require('./order-lesson.js').race(lab);
  for (const [name, cells] of rows) {
    const s = r[scheme[name]];
    const expect = [s.prev, s.induction].map((step, i) => (step === null ? 'none' : `order:race:${scheme[name]}:${i ? 'induction' : 'prev'}`))
      .concat([32, ...RACE.lengths].map((n) => (s.refused[n] ? 'refused' : `order:race:${scheme[name]}:loss:${n}`)));
    assert.deepEqual(cells.map((c) => (c.match(/data-fact="([^"]+)"/) || [null, c])[1]), expect, `${name}'s row`);
  }
});

test('lesson 8: each question comes before its answer, the answer folded away, and no question states an engine number', () => {
  const questions = Array.from(html.matchAll(/<p class="predict">([\s\S]*?)<\/p>\s*<details([^>]*)>\s*<summary>([^<]*)<\/summary>/g));
  assert.equal(questions.length, (html.match(/<p class="predict">/g) || []).length, 'every question is followed at once by its answer');
  assert.ok(questions.length >= 6, `${questions.length} questions`);
  for (const [, question, attrs, summary] of questions) {
    assert.match(attrs, /^ class="answer"$/, 'an answer box, closed when the page opens');
    assert.match(summary, /^After you have answered/);
    assert.doesNotMatch(question, /data-fact|data-claim/, `the question states no result: ${question.slice(0, 80)}`);
  }
});

test("lesson 8 embeds the position widgets by their agreed tags, with only an id (for links) and the lab's part, and its listing's vectors are the facts'", () => {
  const tags = Array.from(html.matchAll(/<(position-[\w-]+)([^>]*)>/g), (m) => `<${m[1]}${m[2]}>`);
  assert.deepEqual(tags, ['<position-lab id="shuffle" part="shuffle">', '<position-lab id="sinusoid" part="sinusoidal">', '<position-lab id="rope" part="rope">',
    '<position-lab id="alibi" part="alibi">', '<position-race id="race">']);
  const code = html.match(/data-listing="positions-numpy"[^>]*><code>([\s\S]*?)<\/code>/)[1];
  const vector = (name) => JSON.parse(code.match(new RegExp(`^${name} = np\\.array\\((\\[[^\\]]*\\])\\)$`, 'm'))[1]);
  assert.deepEqual(vector('q'), Q);
  assert.deepEqual(vector('k'), K);
});

test('the stray-number reader finds numbers in prose and in decimal formulas, and passes facts, inputs, listings and whole-number formulas', () => {
  assert.deepEqual(strayNumbers('<p>It took 12 steps. Fine \\(2^{-8k/h}\\) and <span data-fact="x">0.5</span>, <span data-input="year">2022</span>, lesson 6.</p><pre>x = 3</pre>'), ['It took 12 steps']);
  assert.deepEqual(strayNumbers('<p>\\(x = 0.5\\)</p>'), ['a decimal in a formula: \\(x = 0.5\\)']);
});

test("lesson 8 sits after lesson 7 with the old lessons' addresses unchanged, and lesson 2's sentence on order and the trainer's documentation link to it", () => {
  const { PAGES } = require('../../scripts/build-site.js');
  const files = PAGES.map((p) => p.file);
  assert.deepEqual(files.slice(0, 9), ['index.html', ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `lesson-${n}.html`)]);
  for (const file of files.filter((f) => f.startsWith('lesson-'))) assert.ok(fs.existsSync(path.join(__dirname, '..', '..', 'web', 'site', file)), file);
  const site = (file) => fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'site', file), 'utf8');
  assert.match(site('lesson-2.html'), /<p>Attention on its own does not know word order:[^<]*<a href="lesson-8\.html">lesson 8<\/a>/);
  assert.match(site('index.html'), /<a href="lesson-8\.html">8\. How attention knows word order<\/a>/);
  const docs = (file) => fs.readFileSync(path.join(__dirname, '..', '..', 'docs', file), 'utf8');
  // In the trainer's own section of the guide for authors.
  const trainer = docs('authors.md').split(/^### /m).find((s) => s.startsWith('Training in the page'));
  assert.match(trainer.replace(/\s+/g, ' '), /is lesson 8 \(`dist\/lesson-8\.html`, "How attention knows word order"\)/);
  assert.match(docs('api.md').replace(/\s+/g, ' '), /Lesson 8 \(`dist\/lesson-8\.html`\) trains the five schemes/);
});
