'use strict';
// Builds the iframe embed page into dist/: embed.html and embed.css as they are, and
// embed.js bundled (it reads the widget manifest) as one small classic script beside
// attention-lab.js. No inline script or style, so the page runs under a strict CSP.

const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'web', 'embed');
const out = path.join(root, 'dist');

function buildEmbed() {
  fs.mkdirSync(out, { recursive: true });
  esbuild.buildSync({
    entryPoints: [path.join(src, 'embed.js')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    outfile: path.join(out, 'embed.js'),
    minify: true,
    logLevel: 'warning',
  });
  for (const file of ['embed.html', 'embed.css']) fs.copyFileSync(path.join(src, file), path.join(out, file));
  console.log('build: dist/embed.html (embed.js, embed.css)');
}

module.exports = { buildEmbed };
if (require.main === module) buildEmbed();
