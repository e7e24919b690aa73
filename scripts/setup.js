#!/usr/bin/env node
'use strict';
// Installs what the build and tests need, on a fresh Debian machine or an existing setup:
//   Debian packages through apt-get when run as root (otherwise prints the command),
//   npm packages through npm ci when node_modules is missing or stale.
// An emcc already on PATH (e.g. from emsdk) is used as it is.
// Usage: node scripts/setup.js [--browser] [--recipes] [--model]
//   --browser adds Chromium for browser tests;
//   --model adds WordNet (wordnet-base), the corpus npm run train:model trains on;
//   --recipes adds MkDocs, Hugo and nbconvert, which the embedding-recipe tests build sites with,
//   and the npm packages of the recipes that have their own package.json (VitePress, reveal.js),
//   installed by npm ci in their folder (offline once npm's cache holds them).
//   These are optional: when they cannot be installed, setup says so and those tests skip.

const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function fuzzRuntimeMissing() {
  return require('./fuzz.js').missing(onPath('clang++') ? 'clang++' : null);
}

// What each need is, how to tell it is there, and the Debian package that brings it.
const needs = [
  { what: 'C++ compiler', ok: () => onPath('c++') || onPath('g++'), pkg: 'g++' },
  { what: 'make', ok: () => onPath('make'), pkg: 'make' },
  { what: 'cmake', ok: () => onPath('cmake'), pkg: 'cmake' },
  { what: 'emscripten (emcc)', ok: () => onPath('emcc') && onPath('emcmake'), pkg: 'emscripten' },
  { what: 'xtensor headers', ok: () => fs.existsSync('/usr/include/xtensor/xarray.hpp'), pkg: 'xtensor-dev' },
  { what: 'xtl headers', ok: () => fs.existsSync('/usr/include/xtl/xtl_config.hpp'), pkg: 'xtl-dev' },
  { what: 'Catch2 headers', ok: () => fs.existsSync('/usr/include/catch2/catch.hpp'), pkg: 'catch2' },
  { what: 'clang++ (the fuzz harness)', ok: () => onPath('clang++'), pkg: 'clang' },
  { what: "clang's libFuzzer runtime", ok: () => fuzzRuntimeMissing() === null, pkg: 'libclang-rt-14-dev' },
  // Lesson 8's NumPy listing runs in tests/node/listings.test.js with Debian's python3.
  { what: "NumPy for Debian's python3", ok: () => spawnSync('/usr/bin/python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0, pkg: 'python3-numpy' },
];
const browserNeeds = [
  { what: 'Chromium', ok: () => fs.existsSync('/usr/bin/chromium'), pkg: 'chromium' },
];
const modelNeeds = [
  { what: 'WordNet data files', ok: () => fs.existsSync('/usr/share/wordnet/data.noun'), pkg: 'wordnet-base' },
];
const recipeNeeds = [
  { what: 'MkDocs', ok: () => onPath('mkdocs'), pkg: 'mkdocs' },
  { what: 'Hugo', ok: () => onPath('hugo'), pkg: 'hugo' },
  { what: 'nbconvert', ok: () => onPath('jupyter-nbconvert'), pkg: 'jupyter-nbconvert' },
];

let aptUpdated = false;

/** Installs what `list` lacks; `optional` needs only warn when they cannot be installed. */
function ensureDebianPackages(list, { optional = false } = {}) {
  const missing = list.filter((n) => !n.ok());
  if (missing.length === 0) return;
  const pkgs = [...new Set(missing.map((n) => n.pkg))];
  console.log(`setup: missing ${missing.map((n) => n.what).join(', ')}`);
  const fail = (message) => {
    if (optional) {
      console.warn(`setup: ${message} (optional: the tests that need them will skip)`);
      return;
    }
    console.error(`setup: ${message}`);
    process.exit(1);
  };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !onPath('apt-get')) {
    fail(`install them first, e.g.: sudo apt-get update && sudo apt-get install -y ${pkgs.join(' ')}`);
    return;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  console.log(`setup: apt-get install ${pkgs.join(' ')}`);
  try {
    if (!aptUpdated) execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
    aptUpdated = true;
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  } catch (err) {
    fail(`apt-get failed: ${err.message}`);
    return;
  }
  const still = list.filter((n) => !n.ok());
  if (still.length) fail(`still missing after apt-get: ${still.map((n) => n.what).join(', ')}`);
}

/** Runs npm ci in `dir` when its node_modules lacks a dev dependency or is older than its lock file. */
function ensureNpmPackages(dir = root, { optional = false } = {}) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const wanted = Object.keys(pkg.devDependencies || {});
  const lock = path.join(dir, 'package-lock.json');
  const marker = path.join(dir, 'node_modules', '.package-lock.json');
  const present = wanted.every((name) => fs.existsSync(path.join(dir, 'node_modules', name, 'package.json')));
  const fresh = fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs;
  if (present && fresh) return;
  const where = path.relative(root, dir) || '.';
  console.log(`setup: npm ci in ${where}`);
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, stdio: 'inherit' });
  } catch (err) {
    if (!optional) throw err;
    console.warn(`setup: npm ci in ${where} failed (optional: the tests that need it will skip)`);
  }
}

/** The recipes in examples/ with npm packages of their own. */
function recipePackages() {
  const examples = path.join(root, 'examples');
  return fs.readdirSync(examples).map((name) => path.join(examples, name)).filter((dir) => fs.existsSync(path.join(dir, 'package-lock.json')));
}

ensureDebianPackages([...needs, ...(process.argv.includes('--browser') ? browserNeeds : []), ...(process.argv.includes('--model') ? modelNeeds : [])]);
if (process.argv.includes('--recipes')) ensureDebianPackages(recipeNeeds, { optional: true });
ensureNpmPackages();
// After the project's own packages: a recipe links the project as its attention-lab package.
if (process.argv.includes('--recipes')) for (const dir of recipePackages()) ensureNpmPackages(dir, { optional: true });
