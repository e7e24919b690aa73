'use strict';
// No module of web/src requires itself through others: a cycle leaves one side with a half-made
// module (its exports still empty) depending on which file a bundler or node loads first.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const SRC = path.join(__dirname, '..', '..', 'web', 'src');

/** Every .js and .mjs file under `dir`, with the relative files it requires or imports. */
function graph(dir, out = new Map()) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) graph(file, out);
    else if (/\.m?js$/.test(entry.name)) {
      const text = fs.readFileSync(file, 'utf8');
      const deps = [...text.matchAll(/(?:require\(|from\s+|import\()\s*'(\.{1,2}\/[^']+)'/g)]
        .map((m) => path.resolve(dir, m[1])).filter((d) => fs.existsSync(d));
      out.set(file, deps);
    }
  }
  return out;
}

/** The cycles found by a depth-first walk, each as the list of files around it. */
function cycles(g) {
  const found = [], state = new Map();  // 1: on the current path, 2: done
  const walk = (node, trail) => {
    if (state.get(node) === 2) return;
    if (state.get(node) === 1) {
      found.push(trail.slice(trail.indexOf(node)).concat(node).map((f) => path.relative(SRC, f)));
      return;
    }
    state.set(node, 1);
    for (const dep of g.get(node) || []) walk(dep, trail.concat(node));
    state.set(node, 2);
  };
  for (const node of g.keys()) walk(node, []);
  return found;
}

test('the cycle finder finds a cycle it is given', () => {
  const a = path.join(SRC, 'a.js'), b = path.join(SRC, 'b.js'), c = path.join(SRC, 'c.js');
  assert.deepEqual(cycles(new Map([[a, [b]], [b, [c]], [c, [a]]])), [['a.js', 'b.js', 'c.js', 'a.js']]);
  assert.deepEqual(cycles(new Map([[a, [b, c]], [b, [c]], [c, []]])), []);
});

test('no module of web/src requires itself through others (the API\'s engine, staging and engine objects included)', () => {
  const g = graph(SRC);
  assert.ok(g.size > 100, `read ${g.size} files`);
  assert.ok(g.get(path.join(SRC, 'api', 'staging.js')).includes(path.join(SRC, 'api', 'engine-object.js')), 'requires are read');
  assert.deepEqual(cycles(g), []);
});
