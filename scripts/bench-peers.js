'use strict';
// Peer implementations for npm run bench: onnxruntime-web (wasm backend, 1 thread) and
// TensorFlow.js (the @tensorflow/tfjs package: core, the cpu backend, and the gradients that
// tfjs-core's own node entry does not register) with its wasm backend (1 thread) and its cpu
// backend (the training rows, scripts/bench-train.js). They live in scripts/bench-peers/ with their own
// lock file and are installed there on the first `npm run bench` (npm ci), so `npm test`
// and the package never carry their ~200 MB.

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const dir = path.join(__dirname, 'bench-peers');

function installPeers() {
  const ready = ['onnxruntime-web', '@tensorflow/tfjs', '@tensorflow/tfjs-core', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-cpu']
    .every((name) => fs.existsSync(path.join(dir, 'node_modules', name, 'package.json')));
  if (ready) return;
  console.log('bench: installing the peer libraries into scripts/bench-peers (npm ci, once)');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
}

// A minimal protobuf writer: enough of ONNX's ModelProto for one small graph.
const varint = (n) => {
  const out = [];
  for (let v = BigInt.asUintN(64, BigInt(n)); ; v >>= 7n) {
    if (v < 0x80n) { out.push(Number(v)); return out; }
    out.push(Number(v & 0x7fn) | 0x80);
  }
};
const field = (no, bytes) => [...varint((no << 3) | 2), ...varint(bytes.length), ...bytes];
const int = (no, n) => [...varint(no << 3), ...varint(n)];
const str = (no, s) => field(no, [...Buffer.from(s)]);

/** attention(Q [n, d], K [n, d], V [n, d]) -> weights [n, n], output [n, d] as an ONNX model. */
function attentionModel(d) {
  const dims = [field(1, str(2, 'n')), field(1, int(1, d))];
  const valueInfo = (name) => str(1, name).concat(field(2, field(1, [...int(1, 1), ...field(2, dims.flat())])));
  const node = (op, inputs, outputs, attrs = []) =>
    [...inputs.flatMap((i) => str(1, i)), ...outputs.flatMap((o) => str(2, o)), ...str(4, op), ...attrs.flat()];
  const scale = Buffer.alloc(4);
  scale.writeFloatLE(1 / Math.sqrt(d));
  const graph = [
    ...field(1, node('Transpose', ['K'], ['Kt'], [field(5, [...str(1, 'perm'), ...int(20, 7), ...int(8, 1), ...int(8, 0)])])),
    ...field(1, node('MatMul', ['Q', 'Kt'], ['scores'])),
    ...field(1, node('Mul', ['scores', 'scale'], ['scaled'])),
    ...field(1, node('Softmax', ['scaled'], ['weights'])),
    ...field(1, node('MatMul', ['weights', 'V'], ['output'])),
    ...str(2, 'attention'),
    ...field(5, [...int(2, 1), ...str(8, 'scale'), ...field(9, [...scale])]),
    ...['Q', 'K', 'V'].flatMap((name) => field(11, valueInfo(name))),
    ...field(12, str(1, 'weights')),
    ...field(12, str(1, 'output')),
  ];
  return Uint8Array.from([...int(1, 8), ...field(8, [...str(1, ''), ...int(2, 13)]), ...field(7, graph)]);
}

const req = (name) => require(require.resolve(name, { paths: [dir] }));

/**
 * TensorFlow.js with its backends registered: the wasm one held to one thread (like the
 * other peers and the engine), and the cpu one. Returns { tf, backends: the names that
 * initialised, skipped: reasons for the others }; tf is null when tfjs-core is missing.
 */
async function loadTfjs() {
  const skipped = [];
  try {
    installPeers();
  } catch (err) {
    return { tf: null, backends: [], skipped: [`peer libraries not installed (${err.message.split('\n')[0]})`] };
  }
  let tf;
  try {
    tf = req('@tensorflow/tfjs');
  } catch (err) {
    return { tf: null, backends: [], skipped: [`@tensorflow/tfjs: ${err.message}`] };
  }
  const backends = [];
  try {
    const wasm = req('@tensorflow/tfjs-backend-wasm');  // registers the backend and its flags
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    wasm.setThreadsCount(1);
    if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend did not initialise');
    backends.push('wasm');
  } catch (err) {
    skipped.push(`tfjs-backend-wasm: ${err.message}`);
  }
  try {
    req('@tensorflow/tfjs-backend-cpu');
    if (!(await tf.setBackend('cpu'))) throw new Error('the cpu backend did not initialise');
    backends.push('cpu');
  } catch (err) {
    skipped.push(`tfjs-backend-cpu: ${err.message}`);
  }
  return { tf, backends, skipped };
}

/**
 * Loads the peers. Returns { name: async (q, k, v, n, d) => { weights, output } } plus
 * `skipped` reasons for any that could not load.
 */
async function loadPeers(d) {
  const peers = {};
  const skipped = [];
  try {
    installPeers();
  } catch (err) {
    return { peers, skipped: [`peer libraries not installed (${err.message.split('\n')[0]})`] };
  }
  try {
    const ort = req('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';
    const session = await ort.InferenceSession.create(attentionModel(d), { executionProviders: ['wasm'] });
    peers['onnxruntime-web, wasm, 1 thread'] = async (q, k, v, n) => {
      const feeds = {
        Q: new ort.Tensor('float32', q, [n, d]), K: new ort.Tensor('float32', k, [n, d]), V: new ort.Tensor('float32', v, [n, d]),
      };
      const r = await session.run(feeds);
      return { weights: r.weights.data, output: r.output.data };
    };
  } catch (err) {
    skipped.push(`onnxruntime-web: ${err.message}`);
  }
  const { tf, backends, skipped: tfSkipped } = await loadTfjs();
  if (backends.includes('wasm')) {
    await tf.setBackend('wasm');
    const scale = 1 / Math.sqrt(d);
    peers['tfjs, wasm backend, 1 thread'] = async (q, k, v, n) => {
      const [w, o] = tf.tidy(() => {
        const weights = tf.softmax(tf.mul(tf.matMul(tf.tensor2d(q, [n, d]), tf.tensor2d(k, [n, d]), false, true), scale));
        return [weights, tf.matMul(weights, tf.tensor2d(v, [n, d]))];
      });
      const r = { weights: w.dataSync(), output: o.dataSync() };
      w.dispose();
      o.dispose();
      return r;
    };
  } else {
    skipped.push(...tfSkipped.filter((s) => !s.startsWith('tfjs-backend-cpu')));
  }
  return { peers, skipped };
}

module.exports = { loadPeers, loadTfjs, attentionModel };
