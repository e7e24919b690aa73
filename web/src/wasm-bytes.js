'use strict';
// The engine's wasm bytes as the build embeds them in a script: base64 text, of the raw
// module or of its gzip. Decoding uses only what browsers, workers and node 18+ share
// (atob, Blob, DecompressionStream): nothing is fetched, not even a data: URL, so a page
// with `connect-src 'none'` stays clean.

function fromBase64(text) {
  // Native where it exists (Chromium 140+, Firefox 133+): a fraction of the loop's time on
  // the main thread.
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

async function gunzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** payload: { encoding: 'gzip' | 'raw', base64 } -> Promise<Uint8Array> of the wasm module. */
async function decodeEmbedded(payload) {
  const bytes = fromBase64(payload.base64);
  return payload.encoding === 'gzip' ? gunzip(bytes) : bytes;
}

module.exports = { decodeEmbedded, fromBase64 };
