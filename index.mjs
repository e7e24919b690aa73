// ES module entry for node: import { loadAttentionLab } from 'attention-lab'.
import lab from './index.js';

export const { loadAttentionLab } = lab;
