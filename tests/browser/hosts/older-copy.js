// Stands in for an older attention-lab.js that a page loaded before the current one: it
// publishes the global as older releases did and defines only some of the elements, as an
// older release had fewer. Its query string says which version it claims (none: a release
// from before versions were published) and which elements it defines (?defines=all: every one).
(function () {
  const params = new URL(document.currentScript.src).searchParams;
  const mine = (params.get('defines') || 'attention-heatmap,attention-stepper').split(',');
  const all = ['attention-stepper', 'attention-heatmap', 'attention-worked-example', 'scaling-experiment', 'multihead-view', 'shape-tracer',
    'padding-mask', 'softmax-demo', 'mistakes-lab', 'position-lab', 'online-softmax-stepper', 'kv-cache-stepper', 'cost-lab', 'attention-trainer', 'position-race', 'model-attention'];
  for (const tag of mine[0] === 'all' ? all : mine) {
    customElements.define(tag, class extends HTMLElement {
      connectedCallback() { this.textContent = 'drawn by the older copy'; }
    });
  }
  window.AttentionLab = { loadAttentionLab: () => Promise.reject(new Error('the older copy has no engine in this test')) };
  if (params.get('version')) window.AttentionLab.version = params.get('version');
})();
