'use strict';
// Guards against drift between what the README promises and what the project does.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadAttentionLab } = require('./lab.js');

const root = path.resolve(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
// The README and the documents it links (docs/): what the project promises, in one text.
const docs = [readme, ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => fs.readFileSync(path.join(root, 'docs', f), 'utf8'))].join('\n');

test('the README opens with the two commands and says they install what they need', () => {
  const top = readme.split('\n').slice(0, 16).join('\n');
  assert.match(top, /npm start/);
  assert.match(top, /npm test/);
  assert.match(top, /fresh Debian machine/);
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.match(pkg.scripts.test, /scripts\/setup\.js/);
  assert.match(pkg.scripts.start, /scripts\/setup\.js/);
});

test('CI runs the README test command', () => {
  assert.match(fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8'), /^npm test$/m);
});

test('the README and docs/ document every function of the JS API and every widget, and the README links every document', async () => {
  const lab = await loadAttentionLab();
  const functions = Object.keys(lab).filter((name) => typeof lab[name] === 'function' && name !== 'Tensor');
  assert.ok(functions.length >= 12);
  for (const name of functions) assert.ok(docs.includes(`lab.${name}(`), `the docs document lab.${name}(...)`);
  const source = fs.readFileSync(path.join(root, 'web', 'src', 'kit', 'index.js'), 'utf8');
  const widgets = [...source.matchAll(/^ {2}'([a-z]+-[a-z-]+)': /gm)].map((m) => m[1]);
  assert.ok(widgets.length >= 7);
  for (const tag of widgets) assert.ok(readme.includes(`<${tag}>`) && docs.includes(`#### \`<${tag}>\``), `README lists <${tag}> and the element reference documents it`);
  for (const f of fs.readdirSync(path.join(root, 'docs')).filter((x) => x.endsWith('.md'))) assert.ok(readme.includes(`](docs/${f})`), `README links docs/${f}`);
});
