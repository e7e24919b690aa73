// A worker that loads the classic script with importScripts and runs one attention.
'use strict';
importScripts('../../../dist/attention-lab.js');
self.AttentionLab.loadAttentionLab().then(function (lab) {
  var r = lab.attention([[1, 0, 2]], [[1, 1, 0], [0, 2, 1]], [[1, 2], [3, 4]]);
  self.postMessage({ ok: true, weights: Array.from(r.weights.data), output: Array.from(r.output.data) });
}, function (err) {
  self.postMessage({ ok: false, message: String(err && err.message) });
});
