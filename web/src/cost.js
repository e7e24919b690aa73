'use strict';
// What attention costs: tiled attention with an online softmax, its step-through for one row,
// the cost figures of full vs tiled, the byte calculators and the KV cache. Types and structure
// are checked here (options.js); every value rule is the engine's (cpp/src/cost.cpp, tiled.cpp,
// kv_cache.cpp), so messages read the same from C++, node and the browser.

const { fromEngine, describe } = require('./tensor.js');
const { checkSpec, boolOption, numberArg, numberOption, attentionOptions } = require('./options.js');

const TILED_OPTIONS = ['causal', 'validLens', 'window', 'scale', 'blockQ', 'blockK'];
const EXPLAIN_OPTIONS = ['block', 'causal', 'validLens', 'window', 'scale'];
const DTYPES = ['float64', 'float32', 'float16', 'bfloat16', 'int8'];

function dtypeOption(fn, o, fallback) {
  const value = o.dtype === undefined ? fallback : o.dtype;
  if (typeof value !== 'string') throw new Error(`${fn}: dtype is ${describe(value)}; expected one of ${DTYPES.map((d) => `'${d}'`).join(', ')}`);
  return value;
}

/** Copies an optional number option into `out` when given. */
function copyNumber(fn, o, key, out) {
  const value = numberOption(fn, o, key);
  if (value !== undefined) out[key] = value;
}

/**
 * The cost half of the API, spread into the lab object.
 * @param core the embind module; @param input (value, fn, name) -> engine tensor input;
 * @param ctx what tensor.js needs from the engine; @param unwrap turns { error } into an Error
 */
function costApi(core, { input, ctx, unwrap }) {
  return {
    /**
     * Attention computed over key blocks with a running max, sum and output per row, never
     * holding the m x n matrix.
     * @param options { causal, validLens, window, scale, blockQ = min(64, m), blockK = min(64, n) }
     * @returns { output, lse, blockQ, blockK, scale, figures: { peakExtraFloats, floatsRead,
     *   floatsWritten, multiplyAdds, blocksComputed, blocksSkipped } }
     */
    tiledAttention(Q, K, V, options) {
      const fn = 'tiledAttention';
      const { options: o, own } = attentionOptions(fn, options, ctx, TILED_OPTIONS);
      copyNumber(fn, own, 'blockQ', o);
      copyNumber(fn, own, 'blockK', o);
      const raw = unwrap(core.tiledAttention(input(Q, fn, 'Q'), input(K, fn, 'K'), input(V, fn, 'V'), o));
      raw.output = fromEngine(raw.output);
      raw.lse = fromEngine(raw.lse);
      return raw;
    },

    /**
     * The figures of full and tiled attention for these sizes, from the counting code the
     * tiled kernel runs.
     * @param spec { batch = 1, heads = 1, m, n, dk, dv = dk, blockQ, blockK, causal = false, window,
     *   fastMemory: M floats of fast memory, which picks the blocks by FlashAttention's rule
     *   (blockQ = ceil(M / 4d), blockK = min(that, d)) in place of blockQ and blockK }
     * @returns { full, tiled, blockQ, blockK, engine, visibleMultiplyAdds (the exact work of the
     *   masks; tiled counts whole blocks), trafficRatio (floats full moves / floats tiled moves) }
     */
    costFigures(spec) {
      const fn = 'costFigures';
      const o = checkSpec(fn, spec, ['batch', 'heads', 'm', 'n', 'dk', 'dv', 'blockQ', 'blockK', 'causal', 'window', 'fastMemory']);
      const sizes = {
        batch: numberArg(fn, o, 'batch', 1),
        heads: numberArg(fn, o, 'heads', 1),
        m: numberArg(fn, o, 'm'),
        n: numberArg(fn, o, 'n'),
        dk: numberArg(fn, o, 'dk'),
        causal: boolOption(fn, o, 'causal'),
      };
      for (const key of ['dv', 'blockQ', 'blockK', 'window', 'fastMemory']) copyNumber(fn, o, key, sizes);
      return unwrap(core.costFigures(sizes));
    },

    /**
     * One query row of 2-D attention through the online softmax, block by block.
     * @param options { block = min(4, n), causal, validLens, window, scale }
     */
    explainOnlineSoftmax(Q, K, V, row, options) {
      const fn = 'explainOnlineSoftmax';
      if (typeof row !== 'number') throw new Error(`${fn}: row is ${describe(row)}; expected a whole number`);
      const { options: o, own } = attentionOptions(fn, options, ctx, EXPLAIN_OPTIONS);
      copyNumber(fn, own, 'block', o);
      const raw = unwrap(core.explainOnlineSoftmax(input(Q, fn, 'Q'), input(K, fn, 'K'), input(V, fn, 'V'), row, o));
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
    kvCacheBytes(spec) {
      const fn = 'kvCacheBytes';
      const o = checkSpec(fn, spec, ['layers', 'kvHeads', 'dHead', 'dtype', 'tokens', 'batch', 'heads', 'window']);
      return unwrap(core.kvCacheBytes(numberArg(fn, o, 'layers', 1), numberArg(fn, o, 'kvHeads'), numberArg(fn, o, 'dHead'),
        dtypeOption(fn, o, 'float16'), numberArg(fn, o, 'tokens', 1), numberArg(fn, o, 'batch', 1),
        numberOption(fn, o, 'heads'), numberOption(fn, o, 'window')));
    },

    /**
     * The weights of one layer: n queries per head per sequence, each weighing min(n, window)
     * keys (n x n without a window).
     * @param spec { batch = 1, heads = 1, n, dtype = 'float32', window }
     * @returns { keysPerQuery, elements, bytes }
     */
    attentionMatrixBytes(spec) {
      const fn = 'attentionMatrixBytes';
      const o = checkSpec(fn, spec, ['batch', 'heads', 'n', 'dtype', 'window']);
      return unwrap(core.attentionMatrixBytes(numberArg(fn, o, 'batch', 1), numberArg(fn, o, 'heads', 1), numberArg(fn, o, 'n'),
        dtypeOption(fn, o, 'float32'), numberOption(fn, o, 'window')));
    },

    /**
     * A decoding cache of keys and values: append a token, attend the newest query.
     * @param spec { heads, kvHeads = heads, dHead, maxLength, scale = 1/sqrt(dHead) }
     */
    createKVCache(spec) {
      const { KVCache } = require('./kv-cache.js');  // on first use: lab.js says why
      return new KVCache(core, spec, { input, engineBuffer: ctx.engineBuffer });
    },
  };
}

module.exports = { costApi, TILED_OPTIONS, DTYPES };
