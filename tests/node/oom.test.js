'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { spawnSync } = require('child_process');

test('running out of wasm memory is an Error naming the function, and the module keeps working', () => {
  const child = spawnSync(process.execPath, [path.join(__dirname, 'fixtures', 'oom-child.js')], { encoding: 'utf8', timeout: 60000 });
  assert.equal(child.status, 0);
  assert.equal(child.stderr, '', 'the engine prints nothing, even when memory runs out');
  const r = JSON.parse(child.stdout);
  assert.equal(r.message, 'createWorkspace: out of memory; expected smaller inputs');
  assert.ok(Math.abs(r.after - 6.6976) < 5e-4, 'attention still works afterwards');
  assert.equal(r.heapSize, 2 ** 31, 'memory grew to its 2 GiB maximum and no further');
});
