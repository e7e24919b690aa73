'use strict';
// What attention costs: tiled attention with an online softmax, its step-through for one row,
// the cost figures of full vs tiled, the byte calculators and the KV cache. Types and structure
// are checked by the reader (options.js, by the signatures in signatures.js); every value rule
// is the engine's (cpp/src/cost.cpp, tiled.cpp, kv_cache.cpp), so messages read the same from
// C++, node and the browser.

const { fromEngine } = require('./tensor.js');
const { unwrap } = require('./call.js');

/**
 * The bodies of the cost functions, spread into lab.js's: each gets the engine and its
 * arguments as the reader made them (signatures.js).
 */
function costApi() {
  return {
    /**
     * Attention computed over key blocks with a running max, sum and output per row, never
     * holding the m x n matrix.
     * @param options { causal, validLens, window, scale, blockQ = min(64, m), blockK = min(64, n) }
     * @returns { output, lse, blockQ, blockK, scale, figures: { peakExtraFloats, floatsRead,
     *   floatsWritten, multiplyAdds, blocksComputed, blocksSkipped } }
     */
    tiledAttention(e, [Q, K, V, o]) {
      const raw = unwrap(e.core.tiledAttention(Q, K, V, o));
      raw.output = fromEngine(raw.output);
      raw.lse = fromEngine(raw.lse);
      return raw;
    },

    /**
     * The figures of full and tiled attention for these sizes, from the counting code the
     * tiled kernel runs. Every figure is for the whole call except peakExtraFloats, which is
     * what one (batch, head) slice holds at once, for both methods.
     * @param spec { batch = 1, heads = 1, m, n, dk, dv = dk, blockQ, blockK, causal = false, window }
     */
    costFigures(e, [spec]) {
      return unwrap(e.core.costFigures(spec));
    },

    /**
     * One query row of 2-D attention through the online softmax, block by block.
     * @param options { block = min(4, n), causal, validLens, window, scale }
     */
    explainOnlineSoftmax(e, [Q, K, V, row, o]) {
      const raw = unwrap(e.core.explainOnlineSoftmax(Q, K, V, row, o));
      const list = (a) => Array.from(a);
      for (const key of ['scores', 'output', 'weights', 'fullOutput']) raw[key] = list(raw[key]);
      for (const b of raw.blocks) {
        for (const key of ['scores', 'outputBefore', 'outputAfter']) b[key] = list(b[key]);
      }
      return raw;
    },

    /**
     * Bytes a KV cache holds: per token 2 x layers x kvHeads x dHead x bytes(dtype), times
     * the tokens cached (min(tokens, window) with a sliding window: a rolling buffer) x batch.
     * @param spec { layers = 1, kvHeads, dHead, dtype = 'float16', tokens = 1, batch = 1,
     *   heads (when given, kvHeads must divide it), window }
     * @returns { bytesPerToken, tokensCached, bytes }
     */
    kvCacheBytes(e, [o]) {
      return unwrap(e.core.kvCacheBytes(o.layers, o.kvHeads, o.dHead, o.dtype, o.tokens, o.batch, o.heads, o.window));
    },

    /**
     * The weights of one layer: n queries per head per sequence, each weighing min(n, window)
     * keys (n x n without a window).
     * @param spec { batch = 1, heads = 1, n, dtype = 'float32', window }
     * @returns { keysPerQuery, elements, bytes }
     */
    attentionMatrixBytes(e, [o]) {
      return unwrap(e.core.attentionMatrixBytes(o.batch, o.heads, o.n, o.dtype, o.window));
    },

    /**
     * A decoding cache of keys and values: append a token, attend the newest query.
     * @param spec { heads, kvHeads = heads, dHead, maxLength, scale = 1/sqrt(dHead) }
     */
    createKVCache(e, [spec]) {
      const { KVCache } = require('./kv-cache.js');  // on first use: lab.js says why
      return new KVCache(e, spec);
    },
  };
}

module.exports = { costApi };
