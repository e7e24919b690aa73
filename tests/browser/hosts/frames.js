// Builds the frames from the query: ?dist=<absolute URL of dist/> so the frames can load the
// script from another origin. A sandboxed srcdoc frame (opaque origin, no same-origin), and a
// same-origin srcdoc frame.
window.addEventListener('DOMContentLoaded', function () {
  var dist = new URLSearchParams(location.search).get('dist');
  var doc = function (title) {
    return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>' + title + '</title>' +
      '<script src="' + dist + 'attention-lab.js"></' + 'script></head><body>' +
      '<attention-heatmap id="inner" tokens="the cat sat"></attention-heatmap></body></html>';
  };
  [['sandboxed', 'allow-scripts'], ['srcdoc', null]].forEach(function (spec) {
    var frame = document.createElement('iframe');
    frame.id = spec[0];
    frame.title = spec[0];
    frame.width = '640';
    frame.height = '600';
    if (spec[1]) frame.setAttribute('sandbox', spec[1]);
    frame.srcdoc = doc(spec[0]);
    document.body.append(frame);
  });
});
