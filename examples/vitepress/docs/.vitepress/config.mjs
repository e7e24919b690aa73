import { createRequire } from 'node:module';
import { defineConfig } from 'vitepress';

// The package's custom-elements.json names every element: Vue leaves those tags to the browser.
const manifest = createRequire(import.meta.url)('attention-lab/custom-elements.json');
const tags = new Set(manifest.modules.flatMap((m) => m.declarations.map((d) => d.tagName)));

export default defineConfig({
  title: 'Attention notes',
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tags.has(tag) } } },
});
