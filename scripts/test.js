#!/usr/bin/env node
'use strict';
// Runs every test: the Catch2 suite through ctest, then node's test runner on the wasm
// module (tests/node) and in Chromium (tests/browser). Expects scripts/build.js to have run.

const { spawnSync } = require('child_process');
const path = require('path');

const root = path.resolve(__dirname, '..');
let failed = false;

function step(title, cmd, args) {
  console.log(`\n== ${title}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`== ${title} failed (exit ${r.status})`);
    failed = true;
  }
}

step('C++ tests (Catch2)', 'ctest', ['--test-dir', 'build/native', '--output-on-failure']);

// A short libFuzzer run over the core (tests/fuzz), so a regression the fuzzer finds fast
// fails CI. Where clang's fuzzer runtime is missing it says so and is skipped, not passed.
{
  const { SKIPPED } = require('./fuzz.js');
  const seconds = process.env.FUZZ_SECONDS || '60';
  console.log(`\n== fuzz smoke: node scripts/fuzz.js --seconds ${seconds}`);
  const r = spawnSync(process.execPath, ['scripts/fuzz.js', '--seconds', seconds, '--skip-exit', String(SKIPPED)], { cwd: root, stdio: 'inherit' });
  if (r.status === SKIPPED) console.log('== fuzz smoke SKIPPED (reason above)');
  else if (r.status !== 0) {
    console.error(`== fuzz smoke failed (exit ${r.status})`);
    failed = true;
  }
}
step('node and browser tests', process.execPath, ['--test', '--test-concurrency=1', 'tests/node/', 'tests/browser/']);
process.exit(failed ? 1 : 0);
