#!/usr/bin/env node
'use strict';
// Runs the fuzz harness (tests/fuzz/fuzz_attention.cpp) in two builds, over the seed corpus in
// tests/fuzz/corpus:
//   1. native, with libFuzzer: clang++ -fsanitize=fuzzer,address,undefined, for --seconds;
//   2. wasm32, as the browser runs the engine: em++ with ASan and UBSan, run in node by
//      tests/fuzz/wasm_driver.cpp, which replays the seeds and everything the native run found,
//      then random mutations of them, for --wasm32-seconds (default a quarter of --seconds, at
//      least 10). size_t has 32 bits there, so a size narrowed past 2^32 is caught (UBSan, or
//      the harness's read-back checks); the 64-bit native build cannot see that class.
//
//   3. the tokenizer (JavaScript, so outside the harness): scripts/fuzz-tokenizer.js, for
//      --tokenizer-runs texts (default 30 a second of --seconds).
//
//   node scripts/fuzz.js --seconds 600 [--wasm32-seconds 150] [--tokenizer-runs N] [--skip-exit N] [-- extra libFuzzer flags]
//
// New inputs go to build/fuzz/corpus (the repository's seeds stay as they are); a crash
// leaves its input in build/fuzz/ and the exit code is non-zero. Without clang++ or its
// fuzzer runtime it prints why and exits 0 (the smoke in scripts/test.js says "skipped");
// without em++ the wasm32 half is skipped with its reason.

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'build', 'fuzz');
const binary = path.join(out, 'fuzz_attention');
const SKIPPED = 3;  // exit status with --skip-exit 3: "cannot fuzz here", told apart from a pass

function parseArgs(argv) {
  const args = { seconds: 60, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') { args.extra = argv.slice(i + 1); break; }
    if (argv[i] === '--seconds') args.seconds = Number(argv[++i]);
    else if (argv[i] === '--wasm32-seconds') args.wasmSeconds = Number(argv[++i]);
    else if (argv[i] === '--skip-exit') args.skipExit = Number(argv[++i]);
    else if (argv[i] === '--tokenizer-runs') args.tokenizerRuns = Number(argv[++i]);
    else throw new Error(`fuzz.js: unknown argument ${argv[i]}; expected --seconds N [--wasm32-seconds N] [-- libFuzzer flags]`);
  }
  if (!(Number.isInteger(args.seconds) && args.seconds > 0)) throw new Error('fuzz.js: --seconds expects a whole number > 0');
  if (args.wasmSeconds === undefined) args.wasmSeconds = Math.max(10, Math.round(args.seconds / 4));
  if (args.tokenizerRuns === undefined) args.tokenizerRuns = 30 * args.seconds;
  if (!(Number.isInteger(args.tokenizerRuns) && args.tokenizerRuns >= 0)) throw new Error('fuzz.js: --tokenizer-runs expects a whole number >= 0');
  if (!(Number.isInteger(args.wasmSeconds) && args.wasmSeconds >= 0)) throw new Error('fuzz.js: --wasm32-seconds expects a whole number >= 0');
  return args;
}

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Why fuzzing cannot run here, or null when it can. */
function missing(cxx) {
  if (!cxx) return 'clang++ is not installed (apt-get install -y clang)';
  const probe = spawnSync(cxx, ['--print-runtime-dir'], { encoding: 'utf8' });
  if (probe.status !== 0 || !probe.stdout) return `${cxx} does not run (${probe.error ? probe.error.code : `exit ${probe.status}`})`;
  const dir = probe.stdout.trim();
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';
  const candidates = [path.join(dir, `libclang_rt.fuzzer-${arch}.a`), path.join(dir, 'libclang_rt.fuzzer.a')];
  if (!candidates.some((f) => fs.existsSync(f))) {
    return `clang's libFuzzer runtime is missing (no ${candidates[0]}; apt-get install -y libclang-rt-14-dev)`;
  }
  return null;
}

function sources() {
  const src = path.join(root, 'cpp', 'src');
  return fs.readdirSync(src).filter((f) => f.endsWith('.cpp')).sort().map((f) => path.join(src, f));
}

/** True when `target` is newer than the harness, the engine's sources and this script. */
function current(target, inputs) {
  const newest = Math.max(...inputs.concat(
    fs.readdirSync(path.join(root, 'cpp', 'include', 'attnlab')).map((f) => path.join(root, 'cpp', 'include', 'attnlab', f)),
    [path.join(root, 'tests', 'cpp', 'reference.hpp'), __filename],
  ).map((f) => fs.statSync(f).mtimeMs));
  return fs.existsSync(target) && fs.statSync(target).mtimeMs > newest;
}

function build(cxx) {
  fs.mkdirSync(out, { recursive: true });
  const inputs = [path.join(root, 'tests', 'fuzz', 'fuzz_attention.cpp'), ...sources()];
  if (current(binary, inputs)) return;
  const flags = ['-std=c++17', '-g', '-O2', '-fsanitize=fuzzer,address,undefined', '-fno-sanitize-recover=undefined',
    '-I', path.join(root, 'cpp', 'include')];
  console.log(`fuzz: building ${path.relative(root, binary)} with ${cxx}`);
  const r = spawnSync(cxx, [...flags, ...inputs, '-o', binary], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`fuzz: ${cxx} failed (exit ${r.status})`);
}

const wasmScript = path.join(out, 'fuzz_attention_wasm32.js');

/** The harness as wasm32 with ASan and UBSan (em++), or the reason it cannot be built here. */
function buildWasm32() {
  const emxx = which('em++');
  if (!emxx) return 'em++ is not installed (apt-get install -y emscripten)';
  const clang = which('clang++');
  const resource = clang && spawnSync(clang, ['-print-resource-dir'], { encoding: 'utf8' }).stdout.trim();
  if (!resource || !fs.existsSync(path.join(resource, 'include', 'fuzzer', 'FuzzedDataProvider.h'))) {
    return "clang's fuzzer/FuzzedDataProvider.h is missing (apt-get install -y clang)";
  }
  const inputs = [path.join(root, 'tests', 'fuzz', 'fuzz_attention.cpp'), path.join(root, 'tests', 'fuzz', 'wasm_driver.cpp'), ...sources()];
  if (current(wasmScript, inputs)) return null;
  // -idirafter: xtensor and FuzzedDataProvider.h sit outside emscripten's sysroot, so they are
  // searched after it (docs in TOOLCHAIN.md). JS exceptions: the engine throws argument_error.
  const flags = ['-std=c++17', '-O1', '-fexceptions', '-fsanitize=address,undefined', '-fno-sanitize-recover=all',
    '-I', path.join(root, 'cpp', 'include'), '-idirafter', '/usr/include', '-idirafter', path.join(resource, 'include'),
    '-sALLOW_MEMORY_GROWTH=1', '-sINITIAL_MEMORY=268435456', '-sMAXIMUM_MEMORY=4GB', '-sNODERAWFS=1', '-sSINGLE_FILE=1',
    '-sEXIT_RUNTIME=1', '-sENVIRONMENT=node'];
  console.log(`fuzz: building ${path.relative(root, wasmScript)} with ${emxx} (wasm32, ASan and UBSan)`);
  const env = { ...process.env, NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(path.delimiter) };
  const r = spawnSync(emxx, [...flags, ...inputs, '-o', wasmScript], { stdio: 'inherit', env });
  if (r.status !== 0) throw new Error(`fuzz: ${emxx} failed (exit ${r.status})`);
  return null;
}

/** Runs the wasm32 build over the seeds and the native run's corpus; its exit status. */
function runWasm32(seconds, corpus) {
  const why = buildWasm32();
  if (why) {
    console.log(`fuzz: wasm32 skipped: ${why}`);
    return 0;
  }
  const seed = String(Date.now() % 1000000);
  const args = [wasmScript, String(seconds), seed, out, corpus, path.join(root, 'tests', 'fuzz', 'corpus')];
  console.log(`fuzz: node ${args.map((a) => path.relative(root, a) || a).join(' ')}`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 28 });
  const log = r.stderr || '';
  if (r.status !== 0) for (const l of log.split('\n').slice(-40)) console.log(l);
  console.log(`fuzz: wasm32 exit ${r.status} after ${Math.round((Date.now() - t0) / 1000)} s (seed ${seed})`);
  return r.status;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const cxx = process.env.CXX_FUZZ || which('clang++');
  const why = missing(cxx);
  if (why) {
    console.log(`fuzz: skipped: ${why}`);
    process.exit(args.skipExit === undefined ? 0 : args.skipExit);
  }
  build(cxx);
  const corpus = path.join(out, 'corpus');
  fs.mkdirSync(corpus, { recursive: true });
  // A unit takes well under a millisecond; the generous timeout only keeps a loaded CI
  // machine (ASan returning memory to the OS) from reporting a stall as a hang.
  const flags = [`-max_total_time=${args.seconds}`, '-print_final_stats=1', '-timeout=120', '-rss_limit_mb=2048',
    `-artifact_prefix=${out}${path.sep}`, ...args.extra, corpus, path.join(root, 'tests', 'fuzz', 'corpus')];
  console.log(`fuzz: ${path.relative(root, binary)} ${flags.join(' ')}`);
  // Short malloc stacks and a small quarantine: the harness allocates on every step, and
  // ASan's defaults spend most of the time unwinding stacks for each malloc.
  const env = { ...process.env, ASAN_OPTIONS: process.env.ASAN_OPTIONS || 'malloc_context_size=2:quarantine_size_mb=16' };
  const r = spawnSync(binary, flags, { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 28, env });
  const log = r.stderr || '';
  const lines = log.split('\n');
  // libFuzzer prints progress to stderr; keep the summary and any failure readable.
  const keep = lines.filter((l) => /stat::|ERROR|fuzz check failed|unexpected error|SUMMARY|runtime error|Test unit written|DONE/.test(l));
  for (const l of (r.status === 0 ? keep : lines.slice(-60))) console.log(l);
  const execs = /stat::number_of_executed_units:\s*(\d+)/.exec(log);
  console.log(`fuzz: ${execs ? execs[1] : '?'} executions in ${args.seconds} s, exit ${r.status}`);
  if (r.status !== 0) process.exit(1);
  const wasm = args.wasmSeconds > 0 ? runWasm32(args.wasmSeconds, corpus) : 0;
  // The tokenizer is JavaScript, outside this harness: its own fuzz, about 300 texts a second.
  const tokenizer = args.tokenizerRuns > 0
    ? spawnSync(process.execPath, [path.join(__dirname, 'fuzz-tokenizer.js'), '--runs', String(args.tokenizerRuns)], { stdio: 'inherit' }).status : 0;
  process.exit(wasm === 0 && tokenizer === 0 ? 0 : 1);
}

module.exports = { SKIPPED, missing };
if (require.main === module) main();
