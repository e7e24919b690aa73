'use strict';
// The cost lab's traffic table without the DOM: the fast-memory sizes a reader may pick, and
// the sentences that read the engine's counts (lab.costFigures) for a learner. No arithmetic
// on results: the engine picks the blocks for a fast memory, counts every float and gives
// the traffic ratio; this only chooses words.

const { grouped, fixed } = require('./format.js');
const { formatBytes } = require('./bytes.js');

/** Bytes of one float the engine counts (float32). */
const FLOAT_BYTES = 4;

/**
 * Fast-memory sizes M for the traffic table, in KiB of float32 numbers, each with what it is.
 * 192 KiB: the on-chip memory (SRAM) of one of an A100's 108 streaming multiprocessors, as
 * FlashAttention's paper gives it (Dao et al. 2022, section 2.1).
 */
const FAST_MEMORY_CHOICES = [
  { kib: 16, note: '' },
  { kib: 64, note: '' },
  { kib: 192, note: 'an A100 multiprocessor' },
  { kib: 1024, note: '' },
];
const DEFAULT_FAST_MEMORY_KIB = 64;

/** M in floats (the engine's unit) for a choice in KiB. */
function fastMemoryFloats(kib) {
  return (kib * 1024) / FLOAT_BYTES;
}

/**
 * The label of a fast-memory choice, short enough for a phone's menu: "192 KiB (an A100
 * multiprocessor)", and "(this engine's blocks)" when the engine's blocks for it (`blocks`, from
 * costFigures with fastMemory) are its default blocks (`defaults`, from costFigures without).
 * The sentences under the table give M in floats.
 */
function fastMemoryLabel(choice, blocks, defaults) {
  const own = blocks.blockQ === defaults.blockQ && blocks.blockK === defaults.blockK;
  const notes = [choice.note, own ? 'this engine\u2019s blocks' : ''].filter(Boolean);
  return `${formatBytes(choice.kib * 1024)}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

/**
 * Sentences under the traffic table, from the engine's figures.
 * @param c costFigures at the table's n with fastMemory = M; `defaults` without (the
 *   engine's own blocks); `windowed` with the causal window; d, window, kib: the settings;
 *   ownKib: the choice whose blocks are the engine's default (or null)
 */
function trafficSentences({ c, defaults, windowed, d, window, kib, ownKib }) {
  const m = grouped(fastMemoryFloats(kib));
  return {
    ratio: `With a fast memory of M = ${m} floats (${formatBytes(kib * 1024)}), FlashAttention\u2019s rule picks query blocks of ` +
      `\u2308M / 4d\u2309 = ${grouped(c.blockQ)} and key blocks of ${grouped(c.blockK)} (at most d = ${d}). The tiled kernel reads K and V ` +
      `again for every block of queries, so a larger M means fewer passes: here full attention reads and writes ` +
      `${fixed(c.trafficRatio, 1)} times as many floats as tiled attention. The paper\u2019s analysis (Dao et al. 2022, Theorem 2) ` +
      'counts \u0398(N d + N\u00b2) reads and writes of slow memory for the standard method against \u0398(N\u00b2 d\u00b2 / M) for the tiled one, ' +
      'and it measured about 9 times less traffic (40.3 GB against 4.4 GB) for the attention of GPT-2 medium on an A100, forward and backward pass.',
    origin: `Where this engine\u2019s ${grouped(defaults.blockQ)} \u00d7 ${grouped(defaults.blockK)} blocks come from: they are a fixed default ` +
      '(tiledAttention takes blockQ and blockK), not measured from your machine' +
      (ownKib === null ? '.' : `; they are the blocks this rule gives for M = ${grouped(fastMemoryFloats(ownKib))} floats (${formatBytes(ownKib * 1024)}).`),
    window: `Each query sees at most ${grouped(window)} keys: on exactly those keys the work is ${grouped(windowed.visibleMultiplyAdds)} ` +
      `multiply-adds. The tiled kernel computes whole ${grouped(windowed.blockQ)} \u00d7 ${grouped(windowed.blockK)} blocks, some of them ` +
      `partly masked, so its row counts ${grouped(windowed.tiled.multiplyAdds)}.`,
  };
}

module.exports = { FAST_MEMORY_CHOICES, DEFAULT_FAST_MEMORY_KIB, fastMemoryFloats, fastMemoryLabel, trafficSentences };
