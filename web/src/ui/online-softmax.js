'use strict';
// The online-softmax stepper's steps as data, and what each step says, chosen from the
// engine's numbers (lab.explainOnlineSoftmax): a block that is skipped, the first block
// that sets the running max, a block that raises the max (and so rescales what is kept),
// one that leaves it. DOM-free; display and judging only, no arithmetic on results.

const { num, vector } = require('./format.js');

// The default row: lesson 2's sentence, queried from "it".
const DEFAULT_TOKENS = ['the', 'animal', 'did', 'not', 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired'];

const quote = (t) => `"${t}"`;

/** "keys 4 to 7 (cross … because)" for a block [start, end). */
function keysOf(tokens, block) {
  const last = block.end - 1;
  const words = block.start === last ? quote(tokens[block.start]) : `${quote(tokens[block.start])} to ${quote(tokens[last])}`;
  return block.start === last ? `key ${block.start + 1} (${words})` : `keys ${block.start + 1} to ${block.end} (${words})`;
}

/**
 * The steps of one explanation: a start, one per block, a finish.
 * @param explain the result of lab.explainOnlineSoftmax
 * @returns [{ id, kind: 'start' | 'block' | 'finish', title, block?, index? }]
 */
function stepsOf(explain) {
  return [
    { id: 'start', kind: 'start', title: 'Start' },
    ...explain.blocks.map((block, index) => ({ id: `block-${index + 1}`, kind: 'block', index, block, title: `Block ${index + 1}` })),
    { id: 'finish', kind: 'finish', title: 'Divide' },
  ];
}

/** The block's running max moved up (false for a skipped block or one that starts the max). */
function raisesMax(block) {
  return !block.skipped && block.maxBefore !== -Infinity && block.maxAfter > block.maxBefore;
}

/** Whether the block gets the "does the running max change?" question: the max exists before it. */
function asksAbout(block) {
  return !block.skipped && block.maxBefore !== -Infinity;
}

function maskedCount(block) {
  return block.scores.filter((s) => s === -Infinity).length;
}

function narrateStart(tokens, explain) {
  const n = explain.scores.length, blocks = explain.blocks.length;
  const size = explain.blocks.length ? explain.blocks[0].end - explain.blocks[0].start : n;
  return `The query of ${quote(tokens[explain.row])} is compared with ${n} keys, but never all at once: the keys come in ${blocks} ` +
    `${blocks === 1 ? 'block' : 'blocks'} of ${size}${n % size ? ' (the last one shorter)' : ''}. Three numbers are kept between blocks: ` +
    'the running max m (\u2212\u221e so far), the running sum l (0) and the running output o (zeros).';
}

/**
 * @param tokens the key tokens; explain the engine's explanation; index the block
 * @param revealed whether the block's results may be named (the learner has answered, or there is no question)
 */
function narrateBlock(tokens, explain, index, revealed = true) {
  const block = explain.blocks[index];
  const where = `Block ${index + 1} holds ${keysOf(tokens, block)}.`;
  if (block.skipped) {
    return `${where} Every one of them is masked for ${quote(tokens[explain.row])}, so the kernel skips the block: ` +
      'it reads none of its keys or values, and m, l and o stay as they were.';
  }
  const hidden = maskedCount(block);
  const maskNote = hidden ? ` ${hidden} of its keys ${hidden === 1 ? 'is' : 'are'} masked and add${hidden === 1 ? 's' : ''} nothing.` : '';
  if (!revealed) {
    return `${where}${maskNote} The running max so far is ${num(block.maxBefore, 3)}: compare this block's scores with it, ` +
      'and predict what happens to the running max before the results are shown.';
  }
  const sums = `the running sum goes from ${num(block.sumBefore, 4)} to ${num(block.sumAfter, 4)} and the running output becomes ${vector(block.outputAfter, 3)}.`;
  if (block.maxBefore === -Infinity) {
    return `${where}${maskNote} It is the first block with a visible key, so the running max starts at its largest score, ` +
      `m = ${num(block.maxAfter, 3)}; there is nothing to rescale yet. Each key adds e^(s \u2212 m) to the sum and that much of its value to the output: ${sums}`;
  }
  if (raisesMax(block)) {
    return `${where}${maskNote} Its largest score, ${num(block.blockMax, 3)}, is above the running max ${num(block.maxBefore, 3)}, so m moves up to ` +
      `${num(block.maxAfter, 3)}. What was kept so far was measured against the old max, so l and o are first multiplied by ` +
      `e^(${num(block.maxBefore, 3)} \u2212 ${num(block.maxAfter, 3)}) = ${num(block.rescale, 4)}; then this block's terms are added: ${sums}`;
  }
  return `${where}${maskNote} Its largest score, ${num(block.blockMax, 3)}, is not above the running max ${num(block.maxBefore, 3)}, so m stays ` +
    `and the rescale factor is e^0 = ${num(block.rescale, 4)}: this block's terms are simply added, ${sums}`;
}

/**
 * @param diff the engine's largest |online output - ordinary attention output| (lab.maxAbsDiff)
 */
function narrateFinish(tokens, explain, diff) {
  if (explain.lse === -Infinity) {
    return `Every key is masked for ${quote(tokens[explain.row])}: no block added anything, l is still 0, and the output is defined as zeros, as in ordinary attention.`;
  }
  const exact = diff === 0 ? 'exactly the same numbers' : `the same numbers up to float32 rounding (largest difference ${num(diff, 3)})`;
  return `Only now is the output divided by the sum: o / l = ${vector(explain.output, 4)}. Ordinary attention, which holds the whole row of ` +
    `weights at once, gives ${vector(explain.fullOutput, 4)}: ${exact}. Keep the row's log-sum-exp, m + log l = ${num(explain.lse, 4)}, ` +
    'and a backward pass can rebuild any weight of the row without storing it: it recomputes that key\'s score s from Q and K ' +
    'and takes e^(s \u2212 (m + log l)). The FlashAttention paper\'s backward pass does this, block by block.';
}

/** The blocks the kernel skips: every key in them is masked. */
function skippedBlocks(explain) {
  return explain.blocks.map((b, i) => (b.skipped ? i : -1)).filter((i) => i >= 0);
}

/** Choices for "how many blocks will the kernel skip?": none up to all of them. */
function skipChoices(explain) {
  return Array.from({ length: explain.blocks.length + 1 }, (_, k) => ({ label: k === 0 ? 'none' : String(k), value: k }));
}

/**
 * Judges a guess of how many blocks the kernel skips for this row, and says which and why,
 * from the keys the engine left visible (those whose score is not -infinity).
 */
function judgeSkips(choice, tokens, explain) {
  const skipped = skippedBlocks(explain), total = explain.blocks.length;
  const visible = explain.blocks.flatMap((b) => b.scores.map((sc, k) => (sc === -Infinity ? -1 : b.start + k))).filter((j) => j >= 0);
  const sees = visible.length
    ? `the query of ${quote(tokens[explain.row])} sees ${visible.length === 1 ? `only key ${visible[0] + 1}` : `keys ${visible[0] + 1} to ${visible[visible.length - 1] + 1}`}`
    : `the query of ${quote(tokens[explain.row])} sees no key at all`;
  const which = skipped.length === 0
    ? `every block holds at least one of them, so none of the ${total} is skipped`
    : `${skipped.length === 1 ? 'block' : 'blocks'} ${skipped.map((i) => i + 1).join(', ').replace(/, (\d+)$/, ' and $1')} ` +
      `${skipped.length === 1 ? 'holds' : 'hold'} none of them, so the kernel skips ${skipped.length} of the ${total} without reading their keys or values`;
  const right = choice === skipped.length;
  return { ok: true, close: right, message: `${right ? 'Right' : 'Not quite'}: ${sees}; ${which}. A block is skipped only when every key in it is masked.`,
    hint: `A block is skipped only when every key in it is masked. Which keys may the query of ${quote(tokens[explain.row])} see, and which blocks hold none of them?` };
}

/** The "does the running max change?" choices. */
const MAX_CHOICES = [
  { label: 'it goes up (and what is kept gets rescaled)', value: 'up' },
  { label: 'it stays the same (rescale factor 1)', value: 'same' },
];

/** Judges the learner's choice against the engine's block. */
function judgeMaxChange(choice, block) {
  const up = raisesMax(block);
  const right = (choice === 'up') === up;
  const why = up
    ? `the block's largest score ${num(block.blockMax, 3)} is above the running max ${num(block.maxBefore, 3)}, so m becomes ${num(block.maxAfter, 3)} ` +
      `and the rescale factor is e^(${num(block.maxBefore, 3)} \u2212 ${num(block.maxAfter, 3)}) = ${num(block.rescale, 4)}.`
    : `the block's largest score ${num(block.blockMax, 3)} is not above the running max ${num(block.maxBefore, 3)}, so m stays and the rescale factor is ${num(block.rescale, 4)}.`;
  return { ok: true, close: right, message: `${right ? 'Right' : 'Not this time'}: ${why}`,
    hint: 'The running max moves only if some score in this block is larger than it. Look at the block\'s scores against m.' };
}

module.exports = { DEFAULT_TOKENS, stepsOf, raisesMax, asksAbout, keysOf, narrateStart, narrateBlock, narrateFinish, judgeMaxChange, MAX_CHOICES,
  skippedBlocks, skipChoices, judgeSkips };
