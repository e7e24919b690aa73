// The shipped model for a site built with a bundler: `import 'attention-lab/model'` registers
// it where lab.loadModel() and <model-attention model> look for it (globalThis.AttentionLabModels,
// as the classic <script src="attention-lab-model.js"> does), and exports the model object.
// The model file is a CommonJS module to a bundler (its script sets module.exports), so the
// registering is done here. Copied to dist/ by scripts/build.js.
import model from './attention-lab-model.js';

let all = globalThis.AttentionLabModels;
if (!all || Object.getPrototypeOf(all) !== Object.prototype) all = globalThis.AttentionLabModels = {};
all[model.name] = model;

export default model;
