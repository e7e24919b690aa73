// Entry of the elements module (dist/attention-lab-elements.mjs, the package's
// "attention-lab/elements"): importing it defines the widgets, as the classic script does,
// for sites built with a bundler (VitePress, Vite, webpack, Astro). The engine is the
// package's main module (dist/attention-lab.mjs, kept a separate import by scripts/build.js),
// so a page that also imports the API from 'attention-lab' runs one engine. No node built-ins;
// where there are no custom elements (a server-side render), importing it defines nothing.
import { loadAttentionLab as ownLoader, engineSource } from './module.mjs';
import copies from './kit/copies.js';
import engineWorker from './kit/engine-worker.js';

// The trainer and the cost lab start their workers from a Blob of the engine's source.
engineWorker.setEngineSource(engineSource);

/** The page's engine: this module's, or that of a copy of attention-lab loaded before it. */
export const { loadAttentionLab } = copies.takePlace(ownLoader);
