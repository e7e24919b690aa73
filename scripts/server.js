'use strict';
// A small static file server for the site and the browser tests. Loopback only.

const http = require('http');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// What a static host compresses (images and wasm's own formats aside).
const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.wasm']);

/**
 * Serves files under `root` on 127.0.0.1. With `gzip`, text and wasm go gzip-compressed
 * (level 9, kept per file and modification time) to a client that accepts it, as a static
 * host does: what the Lighthouse benchmark measures (scripts/bench-lighthouse.js).
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
function startServer({ root, port = 0, host = '127.0.0.1', gzip = false }) {
  const base = path.resolve(root);
  const packed = new Map();  // file -> { mtimeMs, body }
  const compress = (file, body) => {
    const { mtimeMs } = fs.statSync(file);
    const hit = packed.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit.body;
    const gz = zlib.gzipSync(body, { level: 9 });
    packed.set(file, { mtimeMs, body: gz });
    return gz;
  };
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch (_) {
      res.writeHead(400).end('bad request');
      return;
    }
    let file = path.join(base, rel);
    if (!file.startsWith(base)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, body) => {
      if (err) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${rel}`);
        return;
      }
      const headers = { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' };
      if (gzip && COMPRESSED.has(path.extname(file))) {
        headers.vary = 'accept-encoding';
        if (/\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
          headers['content-encoding'] = 'gzip';
          body = compress(file, body);
        }
      }
      res.writeHead(200, headers);
      res.end(body);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({ url: `http://${host}:${actual}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

module.exports = { startServer };
