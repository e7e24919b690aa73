// An author's script: the data of #later and #early comes from a fetch, a real file with its
// metadata (model, sentence, source, license, note, shape). #early is given its data before the
// widget has even been drawn (it is added with its data); #later once it says al-ready; #prop through the data property.
'use strict';
(function () {
  var url = '../../../web/site/data/gpt2-quick-brown-fox.json';
  var later = document.getElementById('later');
  window.authorLog = [];
  var data = fetch(url).then(function (r) { return r.json(); });
  // #early is put on the page when the data has come and given it at once, in the same task:
  // the element is still loading then, however fast the page and the engine were.
  data.then(function (json) {
    var early = document.createElement('model-attention');
    early.id = 'early';
    later.after(early);
    window.authorLog.push('early called while ' + early.status);
    return early.setAttention(json).then(function () { window.authorLog.push('early drawn'); });
  }).catch(function (err) { window.authorLog.push('early refused: ' + err.message); });
  function whenReady(el, go) {
    if (el.status === 'ready') go();
    else el.addEventListener('al-ready', go, { once: true });
  }
  whenReady(later, function () {
    window.authorLog.push('later ready, waiting: ' + later.state.waiting);
    window.laterGo = function () {
      return data.then(function (json) { return later.setAttention(json); }).then(function () { window.authorLog.push('later drawn'); });
    };
  });
  data.then(function (json) { document.getElementById('prop').data = json; });
})();
