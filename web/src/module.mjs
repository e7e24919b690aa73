// Entry of the ES module build (dist/attention-lab.mjs), which the package's "browser" and
// "default" export conditions name: the engine and JS API for bundlers, no widgets and no
// node built-ins.
import embedded from './embedded.js';

export const { loadAttentionLab } = embedded;
// The built module (scripts/build.js) gives the source of the function that makes its engine,
// for a worker; unbuilt there is none.
export const engineSource = null;
