// attention-lab/model: the shipped model, registered on import for lab.loadModel() and
// <model-attention model> (a site built with a bundler; a page loads attention-lab-model.js instead).
import type { ModelSource } from './index';

declare const model: Extract<ModelSource, { format: 'attention-lab-model' }>;
export default model;
