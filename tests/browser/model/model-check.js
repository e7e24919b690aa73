// Loaded as a same-origin script (inline scripts are blocked under the CSPs tested): counts
// CSP violations, loads the shipped model the kit finds on the page (registered by
// attention-lab-model.js) and records its reading of a sentence in window.modelResult.
'use strict';
window.violations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.violations.push(e.violatedDirective + ' ' + e.blockedURI);
});
window.addEventListener('load', function () {
  AttentionLab.loadAttentionLab().then(function (lab) {
    var model = lab.loadModel();
    var text = 'The cat sat on the mat. The cat sat on the mat.';
    window.modelResult = {
      ok: true,
      names: Object.keys(window.AttentionLabModels || {}),
      attention: model.attention(text),
      predict: model.predict(text),
    };
    model.dispose();
  }).catch(function (err) {
    window.modelResult = { ok: false, message: String(err && err.message) };
  });
});
