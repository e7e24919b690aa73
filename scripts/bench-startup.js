#!/usr/bin/env node
'use strict';
// Where the engine's start-up in node goes, phase by phase: median CPU and wall milliseconds
// over fresh processes, each timing require -> loadAttentionLab() resolved (as npm run bench's
// start-up line does), then the first lab.attention call, and the first call of another
// function. CPU time
// counts every thread of the process and leaves out time spent waiting for a core, so it
// compares checkouts on a busy machine where wall time does not.
//
//   node scripts/bench-startup.js [runs] [checkout ...]   (default: 21 runs of this checkout;
//                                                           several checkouts are interleaved)
// A benchmark, not a test: it prints and never fails.

const { execFileSync } = require('child_process');
const path = require('path');
const { median } = require('./bench-common.js');

/** Runs in the child: instruments one load, prints [[phase, wall ms, cpu ms], ...] and the totals. */
function probe(root) {
  const hr = () => Number(process.hrtime.bigint()) / 1e6;
  const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
  const marks = [];
  let t0 = hr(), c0 = cpu();
  const mark = (label) => { marks.push([label, hr() - t0, cpu() - c0]); t0 = hr(); c0 = cpu(); };
  const W = WebAssembly, Module = W.Module, Instance = W.Instance;
  const fs = require('fs');
  const read = fs.readFileSync;
  fs.readFileSync = function (file, ...rest) {
    const wasm = String(file).endsWith('.wasm');
    if (wasm) mark('glue factory, up to reading the .wasm');
    const out = read.call(this, file, ...rest);
    if (wasm) mark('read the .wasm file');
    return out;
  };
  W.Module = function (bytes) { const m = new Module(bytes); mark('compile (WebAssembly.Module)'); return m; };
  W.Module.prototype = Module.prototype;
  W.Instance = function (m, imports) { const i = new Instance(m, imports); mark('instantiate (WebAssembly.Instance)'); return i; };
  W.Instance.prototype = Instance.prototype;
  W.instantiate = (bytes, imports) => {
    const m = bytes instanceof Module ? bytes : new W.Module(bytes);
    const instance = new W.Instance(m, imports);
    return Promise.resolve(bytes instanceof Module ? instance : { module: m, instance });
  };
  // A checkout whose node entry loads web/src file by file: the API's share on its own.
  const bundled = fs.existsSync(path.join(root, 'build', 'wasm', 'attention_lab_node.js'));
  t0 = hr();
  c0 = cpu();
  const start = [t0, c0];
  if (!bundled) {
    require(path.join(root, 'web', 'src', 'api', 'lab.js'));
    mark('require web/src/api/lab.js and what it needs');
  }
  const { loadAttentionLab } = require(path.join(root, 'index.js'));
  mark(bundled ? 'require index.js, its bundle (glue and API) and cache' : 'require index.js, the glue and the rest');
  loadAttentionLab().then((lab) => {
    mark('constructors, embind registration, createLab, promise hops');
    const total = [hr() - start[0], cpu() - start[1]];
    const x = { shape: [5, 64], data: new Float32Array(320) };
    lab.attention(x, x, x, { stages: ['weights', 'output'] });
    mark('first lab.attention call, n = 5 (not in the total)');
    lab.softmax([0, 1]);
    mark('then the first lab.softmax call (not in the total)');
    process.stdout.write(JSON.stringify({ marks, total }));
  });
}

function main() {
  const args = process.argv.slice(2);
  const runs = args.length && /^\d+$/.test(args[0]) ? Number(args.shift()) : 21;
  const roots = (args.length ? args : [path.resolve(__dirname, '..')]).map((r) => path.resolve(r));
  const results = roots.map(() => []);
  const code = `(${probe})(${JSON.stringify('ROOT')})`;
  for (let i = 0; i < runs; i++) {
    roots.forEach((root, j) => {
      const out = execFileSync(process.execPath, ['-e', code.replace('"ROOT"', JSON.stringify(root))], { encoding: 'utf8' });
      results[j].push(JSON.parse(out));
    });
  }
  roots.forEach((root, j) => {
    console.log(`${root}: median of ${runs} fresh processes, CPU ms / wall ms per phase`);
    const labels = [...new Set(results[j].flatMap((r) => r.marks.map((m) => m[0])))];
    for (const label of labels) {
      const sums = results[j].map((r) => r.marks.filter((m) => m[0] === label).reduce((s, m) => [s[0] + m[2], s[1] + m[1]], [0, 0]));
      console.log(`  ${label.padEnd(52)} ${median(sums.map((s) => s[0])).toFixed(2).padStart(7)} / ${median(sums.map((s) => s[1])).toFixed(2).padStart(7)}`);
    }
    const totals = results[j].map((r) => r.total);
    console.log(`  ${'total, require to loadAttentionLab() resolved'.padEnd(52)} ${median(totals.map((t) => t[1])).toFixed(2).padStart(7)} / ${median(totals.map((t) => t[0])).toFixed(2).padStart(7)}`);
  });
}

main();
