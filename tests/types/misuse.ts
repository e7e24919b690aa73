// Wrong uses, one per line ending in `// error TSnnnn`: tests/node/types.test.js asserts tsc
// reports exactly that error on exactly those lines, so the declarations cannot be vacuous.
import type {} from 'attention-lab/elements';
import { loadAttentionLab } from 'attention-lab';

export async function wrong(): Promise<void> {
  const lab = await loadAttentionLab();
  const Q = [[1, 0]];
  lab.attentoin(Q, Q, Q); // error TS2551
  lab.attention(Q, Q, Q, { causal: 'yes' }); // error TS2322
  lab.attention(Q, Q, Q, { scaling: 'sqrt(dk)' }); // error TS2322
  lab.attention(Q, Q, Q, { casual: true }); // error TS2561
  lab.attention(Q, Q, Q, { stages: ['softmax'] }); // error TS2322
  lab.attention(Q, Q, Q, { stages: ['weights'] }).scores; // error TS2339
  lab.attention(Q, [['a', 'b']], Q); // error TS2322
  lab.dotProductStats({ samples: 10 }); // error TS2741
  lab.createWorkspace({ m: 2, n: 2, dk: 2, dv: 2 }).weights = new Float32Array(4); // error TS2540
  const n: string = lab.maxAbsDiff(Q, Q); // error TS2322
  lab.tiledAttention(Q, Q, Q, { mask: [[true]] }); // error TS2353
  lab.kvCacheBytes({ kvHeads: 8, dHead: 128, dtype: 'fp8' }); // error TS2322
  lab.createKVCache({ heads: 8, dHead: 64, maxLength: 16 }).bytes = 0; // error TS2540
  lab.attention(Q, Q, Q, { rope: { layout: 'neox' } }); // error TS2322
  lab.positions({ kind: 'rotary', n: 4, d: 4 }); // error TS2322
  lab.headSummary(Q, { tokens: 'a b' }); // error TS2322
  const score: number = lab.headSummary(Q)[0].entropy; // error TS2322
  console.log(n, score);
}

export function wrongElements(): void {
  const heatmap = document.createElement('attention-heatmap');
  heatmap.causal = 'yes'; // error TS2322
  heatmap.scaling = 'log'; // error TS2322
  heatmap.heads = '2'; // error TS2339
  heatmap.data = { tokens: 'a b c' }; // error TS2322
  document.createElement('multihead-view').heads = 4; // error TS2322
  document.createElement('attention-stepper').addEventListener('al-change', (event) => event.detail.state.causal); // error TS2339
  heatmap.addEventListener('al-error', (event) => event.detail.state); // error TS2339
  document.createElement('model-attention').view = 'grid'; // error TS2322
  document.createElement('model-attention').data = { attentions: [[[1]]] }; // error TS2741
}
