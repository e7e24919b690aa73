'use strict';
// Runs the engine in two workers: one that imports the classic script, one that is the
// classic script itself (it must load there without touching the DOM).
window.workerResults = {};
var importing = new Worker('worker.js');
importing.onmessage = function (e) { window.workerResults.imported = e.data; };
importing.onerror = function (e) { window.workerResults.imported = { ok: false, message: e.message }; };
var direct = new Worker('../../../dist/attention-lab.js');
direct.onerror = function (e) { window.workerResults.direct = { ok: false, message: e.message }; };
setTimeout(function () { if (!window.workerResults.direct) window.workerResults.direct = { ok: true }; }, 3000);
