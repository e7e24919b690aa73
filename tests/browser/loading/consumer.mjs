// What a course author's bundled app does: import the package by name.
import { loadAttentionLab } from 'attention-lab';

loadAttentionLab().then((lab) => {
  const r = lab.attention([[1, 0, 2]], [[1, 1, 0], [0, 2, 1]], [[1, 2], [3, 4]]);
  window.bundleResult = { ok: true, weights: Array.from(r.weights.data), output: Array.from(r.output.data) };
}, (err) => {
  window.bundleResult = { ok: false, message: err.message };
});
