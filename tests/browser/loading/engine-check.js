// Loaded as a same-origin script (inline scripts are blocked under the CSPs tested): counts
// CSP violations, loads the engine twice and records what happened in window.loadResult.
'use strict';
window.violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.violations.push(e.violatedDirective + ' ' + e.blockedURI);
});
window.addEventListener('load', function () {
  var first = AttentionLab.loadAttentionLab();
  var second = AttentionLab.loadAttentionLab();
  first.then(function (lab) {
    var r = lab.attention([[1, 0, 2]], [[1, 1, 0], [0, 2, 1]], [[1, 2], [3, 4]]);
    window.loadResult = { ok: true, same: first === second, weights: Array.from(r.weights.data), output: Array.from(r.output.data) };
  }, function (err) {
    var third = AttentionLab.loadAttentionLab();
    window.loadResult = {
      ok: false, same: first === second && second === third, code: err.code, message: err.message,
      isError: err instanceof Error, causeName: err.cause && err.cause.name,
    };
  });
});
