// A course author's TypeScript using the package as published: the API from 'attention-lab',
// the elements through their declarations. Must type-check under --strict with no errors.
import { loadAttentionLab as pageEngine } from 'attention-lab/elements';
import { loadAttentionLab } from 'attention-lab';
import type { Lab, Tensor, AttentionResult, WorkspaceSpec, TiledAttentionResult, CostFigures, KVCache } from 'attention-lab';

export async function computeOnce(): Promise<number> {
  const lab: Lab = await loadAttentionLab();
  const Q = [[0, 3, 0, 0]];
  const K = [[2, 0, 0, 1], [0, 3, 0, 0]];
  const V = [[1, 0], [0, 1]];
  const r: AttentionResult = lab.attention(Q, K, V, { causal: false, scaling: 'sqrt', temperature: 2 });
  const weight: number = r.weights.get(0, 1);
  const rows = r.weights.toArray<number[][]>();
  const padded = lab.attention([[[1, 0]]], [[[1, 0], [0, 1]]], [[[1], [2]]], { validLens: [1], mask: [[true, false]] });
  const hidden: number[][] = padded.fullyMaskedRows;

  const fast = lab.attention({ shape: [1, 2], data: new Float32Array([1, 0]) }, [[1, 0]], [[1]], { stages: ['weights', 'output'] });
  const out: Float32Array = fast.output.data;
  const isTensor: boolean = fast.weights instanceof lab.Tensor;

  const spec: WorkspaceSpec = { m: 2, n: 2, dk: 2, dv: 2, causal: true };
  const ws = lab.createWorkspace(spec);
  ws.Q.set([1, 0, 0, 1]);
  ws.K.set([1, 0, 0, 1]);
  ws.V.set([1, 2, 3, 4]);
  const kept: Float32Array = ws.run().weights.slice();
  ws.dispose();

  const trainer = lab.createTrainer({ layers: 2 });
  const knocked = trainer.ablate({ heads: [[0, 1], [1, 0]], mode: 'mean' });
  const repeatLoss: number | null = knocked.scoredLoss;
  const probs: Tensor = knocked.baseline.probabilities;
  const induction: Float64Array = knocked.induction;
  const kComposition: number | null = trainer.composition().composition[0].k;
  const shipped = lab.loadModel();
  const guesses = shipped.ablate('the cat sat. the cat', { heads: [[1, 2]], top: 3, meanOver: ['a dog'], mode: 'mean' }).next;
  console.log(repeatLoss, probs.shape, induction[0], kComposition, guesses[0].token, shipped.composition().copying[0].score);
  trainer.dispose();

  const stats = lab.createDotProductStats({ dk: 512, seed: 3 });
  stats.add(1000);
  const std: number = stats.result().std;
  stats.dispose();

  const trace = lab.traceShapes({ n: 6, dModel: 8, heads: 2 });
  const shapes: string[] = trace.steps.map((step) => `${step.id}: ${step.shape.join(' x ')}`);
  const heads = lab.multiHeadAttention({ X: [[1, 0], [0, 1]], Wq: [[1, 0], [0, 1]], Wk: [[1, 0], [0, 1]], Wv: [[1, 0], [0, 1]], heads: 2, method: 'loop' });
  const soft: Tensor = lab.softmax([1000, 1001, 1002], { axis: -1 });
  const row = lab.explainRow(Q, K, V, 0, { causal: false });
  const worked = lab.examples().worked.tokens.join(' ');
  const gaveBack: void = lab.reset();
  const wrong = lab.mistake(lab.MISTAKES[0].name, { Q: K, K, V, causal: true });
  const leak: number = wrong.figure.value ?? 0;
  const changed: boolean = wrong.cells[0][0];
  const failed = 'error' in wrong.mistaken ? wrong.mistaken.error.length : wrong.mistaken.weights.shape[0];
  const batchLeak = lab.mistake<boolean[][][]>('no-padding-mask', { Q: [K, K], K: [K, K], V: [V, V], validLens: [1, 2] });
  const leakingRow: number = batchLeak.figure.row?.[1] ?? -1;
  const batchCell: boolean = batchLeak.cells[1][0][0];
  const scores = lab.headSummary([[[1, 0], [0.5, 0.5]]], { tokens: ['a', 'b'], causal: true, decimals: 3 });
  const sink: number = scores[0].firstToken ?? 0;
  return leak + sink + Number(changed) + failed + leakingRow + Number(batchCell) + weight + rows[0][1] + hidden.length + out[0] + Number(isTensor) + kept[0] + std + shapes.length
    + heads.output.shape[0] + soft.data[2] + row.sumShifted + worked.length + lab.memory().heapInUse + (gaveBack === undefined ? 0 : 1);
}

export async function whatItCosts(): Promise<number> {
  const lab = await loadAttentionLab();
  const Q = [[0, 3, 0, 0], [1, 0, 0, 1]];
  const windowed = lab.attention(Q, Q, Q, { window: 1 });
  const tiled: TiledAttentionResult = lab.tiledAttention(Q, Q, Q, { causal: true, blockQ: 1, blockK: 2 });
  const lse: number = tiled.lse.get(1);
  const figures: CostFigures = lab.costFigures({ m: 4096, n: 4096, dk: 64, window: 512 });
  const steps = lab.explainOnlineSoftmax(Q, Q, Q, 1, { block: 1 });
  const rescales: number[] = steps.blocks.map((b) => b.rescale);
  const cache: KVCache = lab.createKVCache({ heads: 4, kvHeads: 1, dHead: 4, maxLength: 8 });
  const turning = lab.createKVCache({ heads: 2, dHead: 4, maxLength: 8, rope: { layout: 'half', base: 500000 }, alibi: true });
  turning.dispose();
  const table: Tensor = lab.positions({ kind: 'sinusoidal', n: 16, d: 8 });
  const slopes: number[] = lab.positions({ kind: 'alibi', heads: 8 }).toArray<number[]>();
  const turned = lab.attention([[1, 0]], [[1, 0], [0, 1]], [[1], [2]], { causal: true, rope: { offset: 3 }, alibi: true, stages: ['weights'] });
  cache.append([[1, 0, 0, 0]], [[0, 1, 0, 0]]);
  const step = cache.attend([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]);
  const bytes: number = cache.bytes + lab.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128, dtype: 'bfloat16' }).bytesPerToken
    + lab.attentionMatrixBytes({ n: 1024, dtype: 'float16' }).bytes;
  cache.dispose();
  return windowed.weights.get(0, 0) + lse + figures.tiled.blocksSkipped + rescales.length + step.multiplyAddsWithoutCache + bytes;
}

export function useElements(): void {
  const heatmap = document.createElement('attention-heatmap');
  heatmap.causal = true;
  heatmap.tokens = ['the', 'cat', 'sat'];
  heatmap.scaling = 'dk';
  heatmap.urlState = 'off';
  heatmap.data = { tokens: ['a', 'b'], Q: [[1, 0], [0, 1]], K: [[1, 0], [0, 1]], V: [[1], [2]], options: { causal: true } };
  heatmap.addEventListener('al-change', (event) => {
    const causal: boolean = event.detail.state.causal;
    const temp: number = event.detail.state.temp;
    console.log(causal, temp);
  });
  heatmap.addEventListener('al-error', (event) => console.log(event.detail.message));
  document.body.append(heatmap);

  const tracer = document.querySelector('shape-tracer');
  if (tracer) tracer.dModel = 512;
  const mistakes = document.createElement('mistakes-lab');
  mistakes.mistake = 'fp16-mask-fill';
  const model = document.createElement('model-attention');
  model.view = 'summary';
  model.data = { tokens: ['a', 'b'], attentions: [[[1, 0], [0.5, 0.5]]], causal: true };
  model.data = { tokens: ['a', 'b'], attentions: { shape: [1, 1, 2, 2], dtype: 'float16', base64: 'ADwAAAA4ADg=' } };
  model.addEventListener('al-change', (event) => console.log(event.detail.state.heads.length, event.detail.state.layer ?? 'none'));
  void model.setAttention({ tokens: ['a'], attentions: { shape: [1, 1, 1], data: new Float32Array([1]) } });
  mistakes.addEventListener('al-change', (event) => console.log(event.detail.state.mistake));
  document.addEventListener('al-ready', (event) => console.log(event.detail.state));
  window.AttentionLab.loadAttentionLab().then((lab) => lab.softmax([1, 2, 3]));
  const version: string | undefined = window.AttentionLab.version;
  pageEngine().then((lab) => console.log(version, lab.softmax([0, 1]).data));
}
