'use strict';
// The shipped model's script (attention-lab-model.js, 343 KB) is fetched when a
// <model-attention model> first comes near the viewport, not with the page: from beside the
// classic script (engine-worker.js's MODEL_URL), once per page. A page that loads the script
// itself (a <script> with defer after the kit, an embed page, `import 'attention-lab/model'`)
// has registered the model by the time its deferred scripts have run, and nothing is fetched.

const schedule = require('./schedule.js');
const { MODEL_URL, scriptURL } = require('./engine-worker.js');
const { registeredModels } = require('../api/model-file.js');
const { own } = require('../api/options.js');

const SHIPPED = 'wordnet-small';
let loading = null;

// The page's Trusted Types refusing our policy rejects with the browser's own message.
const addScript = () => new Promise((resolve, reject) => {
  const script = document.createElement('script');
  script.onload = resolve;
  script.onerror = () => reject(new Error(`attention-lab-model.js could not be loaded from ${MODEL_URL}; expected it beside attention-lab.js`));
  script.src = scriptURL(MODEL_URL);
  document.head.append(script);
});

/**
 * Resolves once the model `name` (the model attribute: empty or "wordnet-small" is the shipped
 * one) can be read: after the page's deferred scripts, and for the shipped model not
 * registered by then, after its script has loaded. Rejects with the reason when that script
 * cannot be loaded; any other name is the page's own script's business (loadModel says so).
 */
async function shippedModel(name) {
  await schedule.scriptsRun();
  if ((name && name !== SHIPPED) || own(registeredModels(), SHIPPED) || !MODEL_URL) return;
  loading = loading || addScript();
  await loading;
}

module.exports = { shippedModel };
