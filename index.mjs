// ES module entry: import { loadAttentionLab } from 'attention-lab'.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const { loadAttentionLab } = require('./index.js');
