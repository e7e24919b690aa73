#!/usr/bin/env node
'use strict';
// npm run bench, training rows (issue 20, "Performance"): one training step of the engine's
// trainer beside the same model built by hand in TensorFlow.js (wasm backend, one thread, and
// the cpu backend), in this one process, on the same batch; then the step's throughput as a
// fraction of the engine's matrix kernel, timed in the same run.
//
// Same model: the engine's initial weights are exported and loaded into the tfjs variables,
// and before any timing each configuration's first steps are run on both from those weights
// (every row of the batch the same sequence, so the engine draws exactly that batch): the
// losses must agree, or the row is not printed. Same batch: one batch of the induction rule
// (tasks.cpp: a block of L distinct random tokens, L from 4 to min(vocab, seqLen / 2 - 1),
// repeated to fill the context), made once here; tfjs trains on it as it is, the engine gets
// it as author sequences (task 'sequences') and draws its batch of the same size from them.
// Both score the positions from SCORE_FROM on.
//
// Times: median per step over several samples, after warm-up, in interleaved rounds (best
// median kept), by wall clock and by this process's CPU time (process.cpuUsage), which
// waiting for a core on a loaded machine does not inflate. Ratios are tfjs / attention-lab,
// measured side by side. Run alone: node scripts/bench-train.js (after a wasm build);
// BENCH_TRAIN_ROUNDS=n sets the rounds (default 3), BENCH_TRAIN_CONFIGS=0,1 picks rows.
// A benchmark, not a test: it never fails on a slow machine.

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { median } = require('./bench-common.js');
const { loadTfjs } = require('./bench-peers.js');

const root = path.resolve(__dirname, '..');
const SCORE_FROM = 4;
// the matrix product the step's throughput is compared with: c [256, 256] = a [256, 256] b [256, 256]
const KERNEL_SHAPE = [256, 256, 256];
const NAMES = { wasm: 'tfjs-wasm', cpu: 'tfjs-cpu' };

/** The rows of the table: the trainer's defaults, then larger models. */
const CONFIGS = [
  { name: 'defaults', options: {} },
  { name: 'wider', options: { dModel: 64, heads: 4 } },
  { name: 'wider, longer', options: { dModel: 64, heads: 4, seqLen: 64 } },
  { name: 'wider, longer, MLP', options: { dModel: 64, heads: 4, seqLen: 64, mlp: 256, layerNorm: true } },
];

/**
 * The floating-point operations of one training step's matrix products, 2 per multiply-add,
 * product by product as the engine runs them (transformer.cpp, grad.cpp), for createTrainer's
 * resolved options `o` (trainer.options). Attention's products are counted over the whole
 * n x n square, as both the engine and tfjs compute it (the causal half above the diagonal
 * is computed and then zeroed). Not counted: softmax, cross-entropy, layer norm, the MLP's
 * activation, embeddings, residual adds and Adam, all linear in the activations or the
 * weights; the fraction of the matrix kernel's speed below is therefore the time the step
 * spends away from useful matrix work, whatever it is spent on.
 * @returns { forward, backward, total, products: [{ name, m, k, n, times, flops }] }
 */
function trainStepFlops(o) {
  const B = o.batch, n = o.seqLen, d = o.dModel, H = o.heads, h = o.mlp, V = o.vocab, L = o.layers;
  const R = B * n, dh = d / H;
  const products = [];
  const add = (pass, name, m, k, cols, times) => products.push({ pass, name, m, k, n: cols, times, flops: 2 * m * k * cols * times });
  // y [m, out] = x [m, in] w [in, out]; backward: dx [m, in] = dy w^T, dw [in, out] = x^T dy
  const linear = (name, m, inp, out, times) => {
    add('forward', name, m, inp, out, times);
    add('backward', `${name} dx`, m, out, inp, times);
    add('backward', `${name} dw`, inp, m, out, times);
  };
  linear('qkv', R, d, 3 * d, L);
  add('forward', 'scores q k^T', n, dh, n, L * B * H);
  add('forward', 'output p v', n, n, dh, L * B * H);
  add('backward', 'dv = p^T do', n, n, dh, L * B * H);
  add('backward', 'dp = do v^T', n, dh, n, L * B * H);
  add('backward', 'dq = ds k', n, n, dh, L * B * H);
  add('backward', 'dk = ds^T q', n, n, dh, L * B * H);
  linear('out', R, d, d, L);
  if (h) {
    linear('mlp.in', R, d, h, L);
    linear('mlp.out', R, h, d, L);
  }
  linear('unembedding', R, d, V, 1);
  const sum = (pass) => products.filter((p) => !pass || p.pass === pass).reduce((s, p) => s + p.flops, 0);
  return { forward: sum('forward'), backward: sum('backward'), total: sum(), products };
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function uniform(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` sequences of seqLen + 1 tokens by the induction task's rule (cpp/src/tasks.cpp). */
function inductionSequences(count, vocab, seqLen, seed) {
  const rand = uniform(seed);
  const half = Math.floor(seqLen / 2) > 3 ? Math.floor(seqLen / 2) - 1 : 2;
  const longest = Math.min(vocab, half), shortest = Math.min(4, longest);
  const out = [];
  for (let e = 0; e < count; e++) {
    const L = shortest + Math.floor(rand() * (longest - shortest + 1));
    const ids = Array.from({ length: vocab }, (_, i) => i);
    for (let i = 0; i < L; i++) {
      const j = i + Math.floor(rand() * (vocab - i));
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
    out.push(Array.from({ length: seqLen + 1 }, (_, t) => ids[t % L]));
  }
  return out;
}

/** Exported weights as Map(name -> { shape, data: Float32Array }). */
function weightMap(exported) {
  const out = new Map();
  for (const p of exported.parameters) {
    const bytes = Buffer.from(p.data, 'base64');
    out.set(p.name, { shape: p.shape, data: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice() });
  }
  return out;
}

let tfjsRuns = 0;

/**
 * The engine's model written by hand in tfjs, on the current backend, from `weights`, training
 * on `sequences` (each seqLen + 1 tokens; row t predicts token t + 1) scored from SCORE_FROM.
 * Adam with the engine's beta1 = 0.9, beta2 = 0.99, eps = 1e-8 (cpp/include/attnlab/adam.hpp).
 * @returns { step(): the loss before the update, dispose() }
 */
function tfjsTrainer(tf, o, weights, sequences) {
  const run = `run${tfjsRuns++}`;
  const B = sequences.length, n = o.seqLen, d = o.dModel, H = o.heads, dh = d / H, V = o.vocab, R = B * n;
  const w = {};
  for (const [name, p] of weights) w[name] = tf.variable(tf.tensor(p.data, p.shape), true, `${run}/${name}`);
  const vars = Object.values(w);
  const tokenIds = new Int32Array(R), targetIds = new Int32Array(R), scoreWeight = new Float32Array(R);
  let scored = 0;
  sequences.forEach((s, b) => {
    for (let t = 0; t < n; t++) {
      tokenIds[b * n + t] = s[t];
      targetIds[b * n + t] = s[t + 1];
      if (t >= SCORE_FROM) scored++;
    }
  });
  for (let r = 0; r < R; r++) scoreWeight[r] = r % n >= SCORE_FROM ? 1 / scored : 0;
  const causal = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) causal[i * n + j] = -1e9;  // exp underflows to exactly 0
  const consts = {
    tokens: tf.tensor1d(tokenIds, 'int32'),
    tokenOneHot: tf.cast(tf.oneHot(tf.tensor1d(tokenIds, 'int32'), V), 'float32'),
    targets: tf.cast(tf.oneHot(tf.tensor1d(targetIds, 'int32'), V), 'float32'),
    weight: tf.tensor1d(scoreWeight),
    causal: tf.tensor2d(causal, [n, n]),
  };
  const scale = 1 / Math.sqrt(dh);
  // tfjs-core's node entry registers no chained ops (x.add(y)), so every op is called as tf.op
  const { add, mul, matMul, reshape, transpose } = tf;
  const norm = (x, gain, bias) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return add(mul(mul(tf.sub(x, mean), tf.rsqrt(add(variance, 1e-5))), gain), bias);
  };
  // GPT-2's tanh approximation, as grad.cpp computes it
  const gelu = (u) => mul(mul(u, 0.5), add(tf.tanh(mul(add(u, mul(mul(mul(u, u), u), 0.044715)), Math.sqrt(2 / Math.PI))), 1));
  const act = o.activation === 'relu' ? (u) => tf.relu(u) : gelu;
  // The token embedding's rows by gather; its gradient as one product with the one-hot tokens
  // (the wasm backend has no UnsortedSegmentSum, which gather's own gradient needs).
  const embed = tf.customGrad((table) => ({
    value: tf.gather(table, consts.tokens),
    gradFunc: (dy) => matMul(consts.tokenOneHot, dy, true, false),
  }));
  const loss = () => {
    const pos = tf.slice(w.positionEmbedding, [0, 0], [n, d]);
    let x = reshape(add(reshape(embed(w.tokenEmbedding), [B, n, d]), pos), [R, d]);
    for (let l = 0; l < o.layers; l++) {
      const p = `layers.${l}.`;
      const a = o.layerNorm ? norm(x, w[`${p}ln1.gain`], w[`${p}ln1.bias`]) : x;
      // [rows, 3d] -> q, k, v each [B, H, n, dh]
      const [q, k, v] = tf.unstack(transpose(reshape(matMul(a, w[`${p}qkv`]), [B, n, 3, H, dh]), [2, 0, 3, 1, 4]));
      const weightsP = tf.softmax(add(mul(matMul(q, k, false, true), scale), consts.causal));
      const merged = reshape(transpose(matMul(weightsP, v), [0, 2, 1, 3]), [R, d]);
      x = add(x, matMul(merged, w[`${p}out`]));
      if (o.mlp) {
        const m = o.layerNorm ? norm(x, w[`${p}ln2.gain`], w[`${p}ln2.bias`]) : x;
        const hidden = act(add(matMul(m, w[`${p}mlp.in`]), w[`${p}mlp.inBias`]));
        x = add(x, add(matMul(hidden, w[`${p}mlp.out`]), w[`${p}mlp.outBias`]));
      }
    }
    const f = o.layerNorm ? norm(x, w['final.gain'], w['final.bias']) : x;
    const logits = add(matMul(f, w.unembedding), w.unembeddingBias);
    return tf.neg(tf.sum(mul(tf.sum(mul(tf.logSoftmax(logits), consts.targets), 1), consts.weight)));
  };
  const optimiser = tf.train.adam(o.lr, 0.9, 0.99, 1e-8);
  return {
    step() {
      const l = optimiser.minimize(loss, true, vars);
      const value = l.dataSync()[0];
      l.dispose();
      return value;
    },
    dispose() {
      optimiser.dispose();
      for (const v of vars) v.dispose();
      for (const t of Object.values(consts)) t.dispose();
    },
  };
}

/** Median milliseconds per call of fn, by wall clock and by CPU time, after warm-up. */
function measure(fn, { samples = 7, sampleMs = 80, warm = 2 } = {}) {
  for (let i = 0; i < warm; i++) fn();
  const t0 = process.hrtime.bigint();
  fn();
  const once = Number(process.hrtime.bigint() - t0) / 1e6;
  const reps = Math.max(1, Math.round(sampleMs / Math.max(once, 1e-3)));
  const wall = [], cpu = [];
  for (let s = 0; s < samples; s++) {
    const c0 = process.cpuUsage();
    const w0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) fn();
    wall.push(Number(process.hrtime.bigint() - w0) / 1e6 / reps);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e3 / reps);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** The engine's matrix kernel in a standalone wasm (cpp/bench/matmul_wasm.cpp), built on first use. */
function matmulKernel() {
  const out = path.join(root, 'build', 'bench-wasm', 'matmul.wasm');
  const sources = ['cpp/src/matmul.cpp', 'cpp/include/attnlab/kernels.hpp', 'cpp/bench/matmul_wasm.cpp'].map((f) => path.join(root, f));
  const stale = !fs.existsSync(out) || sources.some((f) => fs.statSync(f).mtimeMs > fs.statSync(out).mtimeMs);
  if (stale) {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const env = { ...process.env };
    if (fs.existsSync('/usr/share/nodejs')) env.NODE_PATH = ['/usr/share/nodejs', env.NODE_PATH].filter(Boolean).join(path.delimiter);
    // the module's flags for its kernels (CMakeLists.txt): compiled at -O3 -msimd128, linked at -Oz
    const objects = [sources[0], sources[2]].map((src) => {
      const obj = path.join(path.dirname(out), `${path.basename(src, '.cpp')}.o`);
      execFileSync('em++', ['-std=c++17', '-O3', '-DNDEBUG', '-msimd128', '-I', path.join(root, 'cpp', 'include'), '-c', src, '-o', obj],
        { env, stdio: ['ignore', 'ignore', 'inherit'] });
      return obj;
    });
    execFileSync('em++', [...objects, '-msimd128', '-Oz', '--no-entry', '-sSTANDALONE_WASM', '-sINITIAL_MEMORY=64MB', '-o', out],
      { env, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const module = new WebAssembly.Module(fs.readFileSync(out));
  const instance = new WebAssembly.Instance(module, {
    wasi_snapshot_preview1: { proc_exit(code) { throw new Error(`matmul kernel exited (${code})`); } },
  });
  instance.exports._initialize();
  return instance.exports;
}

/** GFLOP/s (wall and CPU) of the kernel on c[m, n] = a[m, k] b[k, n], packing b each time as linear() does. */
function kernelSpeed(kernel, m, k, n) {
  kernel.setup(m, k, n);
  const t = measure(() => kernel.run(1), { samples: 9, sampleMs: 60 });
  const flops = 2 * m * k * n;
  return { shape: `${m}x${k} by ${k}x${n}`, wall: t.wall, cpu: t.cpu, gflopsWall: flops / t.wall / 1e6, gflopsCpu: flops / t.cpu / 1e6 };
}

/** Loss of the first `steps` updates of both, from the same weights on the same batch. */
function sameModelCheck(lab, tf, options, sequences, steps = 3) {
  const engine = lab.createTrainer({ ...options, task: 'sequences', sequences: [sequences[0]], scoreFrom: SCORE_FROM });
  const o = engine.options;
  const peer = tfjsTrainer(tf, o, weightMap(engine.exportWeights()), new Array(o.batch).fill(sequences[0]));
  const ours = Array.from(engine.step(steps).losses);
  const theirs = [];
  for (let i = 0; i < steps; i++) theirs.push(peer.step());
  engine.dispose();
  peer.dispose();
  const worst = Math.max(...ours.map((x, i) => Math.abs(x - theirs[i]) / Math.max(1e-6, Math.abs(x))));
  return { ours, theirs, worst };
}

function fmt(ms) {
  return ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0);
}

/** The best (least CPU) of `rounds` calls of measure-like f. */
function bestOf(rounds, f) {
  let out = null;
  for (let r = 0; r < rounds; r++) {
    const t = f();
    out = out && out.cpu <= t.cpu ? out : t;
  }
  return out;
}

function describeOptions(o) {
  return `vocab ${o.vocab}, seqLen ${o.seqLen}, ${o.layers} layers x ${o.heads} heads, dModel ${o.dModel}` +
    `${o.mlp ? `, MLP ${o.mlp} ${o.activation}` : ''}${o.layerNorm ? ', layer norm' : ''}, batch ${o.batch}`;
}

/** One configuration: the same-model check, then the interleaved timing rounds. */
async function trainRow(lab, tf, backends, kernel, config, index, rounds) {
  const probe = lab.createTrainer(config.options);
  const o = probe.options;
  probe.dispose();
  const sequences = inductionSequences(o.batch, o.vocab, o.seqLen, 1234 + index);
  const checks = {};
  for (const name of backends) {
    await tf.setBackend(name);
    checks[name] = sameModelCheck(lab, tf, config.options, sequences);
    if (!(checks[name].worst < 1e-3)) {
      throw new Error(`tfjs (${name}) and the engine disagree on ${config.name}: losses ${checks[name].ours.join(', ')} ` +
        `against ${checks[name].theirs.join(', ')}`);
    }
  }
  const engine = lab.createTrainer({ ...config.options, task: 'sequences', sequences, scoreFrom: SCORE_FROM });
  const own = lab.createTrainer(config.options);  // the induction task, drawing its own batches
  const weights = weightMap(engine.exportWeights());
  const peers = {};
  for (const name of backends) {
    await tf.setBackend(name);
    peers[name] = tfjsTrainer(tf, o, weights, sequences);
  }
  const best = {};
  const keep = (key, t) => {
    best[key] = best[key] || { wall: Infinity, cpu: Infinity };
    best[key].wall = Math.min(best[key].wall, t.wall);
    best[key].cpu = Math.min(best[key].cpu, t.cpu);
  };
  for (let r = 0; r < rounds; r++) {
    // the kernel beside the step in every round: on a shared machine both speeds drift
    // (a process on the core's other hyperthread slows CPU time too), so the step is
    // compared with the best kernel time of the same rounds
    if (kernel) keep('kernel', kernelSpeed(kernel, ...KERNEL_SHAPE));
    keep('engine', measure(() => engine.step(1)));
    keep('own', measure(() => own.step(1)));
    for (const name of backends) {
      await tf.setBackend(name);
      // the cpu backend takes seconds a step at the larger sizes: fewer samples
      keep(name, measure(() => peers[name].step(), name === 'cpu' ? { samples: 3, warm: 1 } : {}));
    }
  }
  engine.dispose();
  own.dispose();
  for (const name of backends) {
    await tf.setBackend(name);
    peers[name].dispose();
  }
  return { config, o, flops: trainStepFlops(o), best, checks };
}

/** Prints the training table, a row as each configuration is measured; `lab` is a loaded attention-lab. */
async function trainRows(lab) {
  const rounds = Number(process.env.BENCH_TRAIN_ROUNDS || 3);
  const picked = process.env.BENCH_TRAIN_CONFIGS ? process.env.BENCH_TRAIN_CONFIGS.split(',').map(Number) : CONFIGS.map((_, i) => i);
  const { tf, backends, skipped } = await loadTfjs();

  // the kernels the step is compared with, in this same process
  let kernel = null;
  try {
    kernel = matmulKernel();
    console.log('');
    for (const [m, k, n] of [[1024, 32, 96], KERNEL_SHAPE]) {
      const t = bestOf(rounds, () => kernelSpeed(kernel, m, k, n));
      console.log(`matrix kernel (cpp/src/matmul.cpp pack_b + matmul_packed, standalone wasm, the module's flags), ${t.shape}: ` +
        `${t.gflopsCpu.toFixed(1)} GFLOP/s by CPU time (${t.gflopsWall.toFixed(1)} by wall)`);
    }
  } catch (err) {
    skipped.push(`the matrix kernel's standalone wasm (em++): ${err.message.split('\n')[0]}`);
  }
  const workspace = lab.createWorkspace({ m: 256, n: 256, dk: 64, dv: 64 });
  for (const t of [workspace.Q, workspace.K, workspace.V]) for (let j = 0; j < t.length; j++) t[j] = Math.sin(j * 0.37);
  const fwd = bestOf(rounds, () => measure(() => workspace.run(), { samples: 9, sampleMs: 60 }));
  workspace.dispose();
  const fwdFlops = 4 * 256 * 256 * 64;
  console.log(`attention forward (workspace, n = 256, d = 64, 4 n^2 d FLOPs): ${(fwdFlops / fwd.cpu / 1e6).toFixed(1)} GFLOP/s by CPU time ` +
    `(${(fwdFlops / fwd.wall / 1e6).toFixed(1)} by wall)`);

  const threads = backends.includes('wasm')
    ? require(require.resolve('@tensorflow/tfjs-backend-wasm', { paths: [path.join(__dirname, 'bench-peers')] })).getThreadsCount() : 0;
  console.log(`\ntraining step beside TensorFlow.js ${tf ? tf.version_core : '(not loaded)'} (wasm backend, ${threads} thread; cpu backend) ` +
    'on the same model, weights, batch and task, one process: ms per step, wall / CPU time, best median of ' +
    `${rounds} interleaved rounds; xR = tfjs / attention-lab (wall / CPU); GFLOP/s = the step's matrix-product FLOPs ` +
    `(trainStepFlops) / its CPU time, beside the ${KERNEL_SHAPE.join('x')} matrix kernel's timed in the same rounds`);
  const header = ['configuration', 'MFLOP per step', 'attention-lab', 'own induction batches'];
  for (const name of backends) header.push(NAMES[name], `x ${NAMES[name]}`);
  header.push('GFLOP/s', 'kernel GFLOP/s', 'of the kernel');
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  const rows = [];
  for (const i of picked) {
    const row = await trainRow(lab, tf, backends, kernel, CONFIGS[i], i, rounds);
    rows.push(row);
    const { best, flops, o } = row;
    const e = best.engine;
    const cells = [`${CONFIGS[i].name}: ${describeOptions(o)}`, (flops.total / 1e6).toFixed(1), `${fmt(e.wall)} / ${fmt(e.cpu)}`,
      `${fmt(best.own.wall)} / ${fmt(best.own.cpu)}`];
    for (const name of backends) {
      const p = best[name];
      cells.push(`${fmt(p.wall)} / ${fmt(p.cpu)}`, `${(p.wall / e.wall).toFixed(1)} / ${(p.cpu / e.cpu).toFixed(1)}`);
    }
    const gflops = flops.total / e.cpu / 1e6;
    const peak = best.kernel ? (2 * KERNEL_SHAPE[0] * KERNEL_SHAPE[1] * KERNEL_SHAPE[2]) / best.kernel.cpu / 1e6 : null;
    cells.push(gflops.toFixed(1), peak ? peak.toFixed(1) : 'n/a', peak ? `${(100 * gflops / peak).toFixed(0)}%` : 'n/a');
    console.log(`| ${cells.join(' | ')} |`);
  }
  for (const { config, checks } of rows) {
    const ours = checks[backends[0]] ? checks[backends[0]].ours : [];
    const parts = Object.entries(checks).map(([name, c]) => `${NAMES[name]} ${c.theirs.map((x) => x.toFixed(5)).join(', ')}`);
    console.log(`  same model, ${config.name}: first losses from the same weights, attention-lab ${ours.map((x) => x.toFixed(5)).join(', ')}; ${parts.join('; ')}`);
  }
  const first = rows.find((r) => r.config === CONFIGS[0]);
  if (first && first.best.wasm) {
    const b = first.best;
    const ahead = rows.every((r) => backends.every((n) => r.best[n].cpu > r.best.engine.cpu && r.best[n].wall > r.best.engine.wall));
    console.log(`  targets: at the defaults at least 3x faster than tfjs-wasm: x${(b.wasm.wall / b.engine.wall).toFixed(1)} wall, ` +
      `x${(b.wasm.cpu / b.engine.cpu).toFixed(1)} CPU; ahead at every size: ${ahead ? 'yes' : 'no'}; ` +
      "aim: a step at 50% or more of the matrix kernel's GFLOP/s");
  }
  for (const reason of skipped) console.log(`  (skipped ${reason})`);
}

if (require.main === module) {
  const { loadAttentionLab } = require(path.join(root, 'index.js'));
  loadAttentionLab().then(trainRows).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

module.exports = { trainRows, trainStepFlops, inductionSequences, CONFIGS };
