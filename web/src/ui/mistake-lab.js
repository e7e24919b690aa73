'use strict';
// <mistakes-lab> without the DOM: the inputs each mistake is shown on, the "which cells
// change?" choices (each a pattern of cells, judged against the engine's `cells`), the
// explanations, and the buggy and fixed code. No arithmetic on results: the engine computes
// every weight, difference and figure; this only builds inputs and compares cell patterns.

const { num } = require('./format.js');

const PAD = '<pad>';

/** How many pad tokens the padding mistake may be shown with (its sentence keeps three tokens). */
const PAD_COUNTS = [1, 2, 3, 4];
const DEFAULT_PADS = 2;

/** Key widths the scaling mistakes may be shown at: the lesson's own vectors (4), or seeded ones. */
const DK_CHOICES = [4, 16, 64, 256];
const DEFAULT_DK = 4;

const rowsOf = (t) => (t && typeof t.toArray === 'function' ? t.toArray() : t);

/** Pads a 2-D [n, d] list of rows with zero rows (pad tokens' vectors): `before` rows first, `after` rows last. */
function padRows(rows, before, after) {
  const zero = () => new Array(rows[0].length).fill(0);
  return [...Array.from({ length: before }, zero), ...rows, ...Array.from({ length: after }, zero)];
}

/**
 * Seeded vectors for a four-token sentence with d_k = 4, so that n = d_k and Q K runs. (The
 * lesson's hand-made vectors make some cells of Q K equal to Q K^T by coincidence.)
 */
function squareExample(lab) {
  const [Q, K, V] = lab.randomNormal({ shape: [3, 4, 4], seed: 5 }).toArray();
  return { tokens: ['the', 'cat', 'sat', 'down'], Q, K, V };
}

/**
 * Seeded standard-normal vectors for the lesson's five tokens at key width `dk` (values 4 wide),
 * so the scaling mistakes can be seen at the widths of real models.
 */
function wideExample(lab, tokens, dk) {
  const n = tokens.length;
  return {
    tokens,
    Q: lab.randomNormal({ shape: [n, dk], seed: 11 }).toArray(),
    K: lab.randomNormal({ shape: [n, dk], seed: 12 }).toArray(),
    V: lab.randomNormal({ shape: [n, 4], seed: 13 }).toArray(),
  };
}

/**
 * The inputs a mistake is shown on, made from an example { tokens, Q, K, V } (the lesson's
 * "time flies like an arrow") and, for keys-not-transposed, `square` (squareExample);
 * `options.pads` (one of PAD_COUNTS) is the padding of no-padding-mask; `options.wide`
 * (wideExample), when given, replaces the example's vectors for no-scaling and scale-by-dk.
 * @returns { tokens, spec (for lab.mistake), setup: a sentence on what the rows are, loud?: a
 *   spec on which the mistake fails with an error (keys-not-transposed) }
 */
function scenario(name, example, square, { pads: padCount = DEFAULT_PADS, wide = null } = {}) {
  const tokens = example.tokens.slice();
  const Q = rowsOf(example.Q), K = rowsOf(example.K), V = rowsOf(example.V);
  const base = { tokens, spec: { Q, K, V }, setup: `Self-attention over "${tokens.join(' ')}", no mask.` };
  switch (name) {
    case 'no-scaling':
    case 'scale-by-dk':
      if (!wide) return base;
      return { tokens, spec: { Q: rowsOf(wide.Q), K: rowsOf(wide.K), V: rowsOf(wide.V) },
        setup: `Self-attention over "${tokens.join(' ')}" with seeded random vectors, d_k = ${rowsOf(wide.Q)[0].length}, no mask.` };
    case 'mask-after-softmax':
      return { ...base, spec: { Q, K, V, causal: true }, setup: `A decoder over "${tokens.join(' ')}": the causal mask hides every later token.` };
    case 'no-causal-mask':
      return { ...base, spec: { Q, K, V, causal: true }, setup: `A decoder over "${tokens.join(' ')}": each token may see itself and the tokens before it.` };
    case 'fp16-mask-fill': {
      // A left-padded sequence decoded with a causal mask: the pad queries see no real key.
      const keep = 3, pads = 2;
      const mask = [[...new Array(pads).fill(false), ...new Array(keep).fill(true)]];
      const cut = (rows) => padRows(rows.slice(0, keep), pads, 0);
      return {
        tokens: [...new Array(pads).fill(PAD), ...tokens.slice(0, keep)],
        spec: { Q: cut(Q), K: cut(K), V: cut(V), causal: true, mask },
        setup: `A batch row padded on the left to ${pads + keep} tokens, with the causal mask and a mask over the pad keys; every score is stored in float16.`,
      };
    }
    case 'keys-not-transposed': {
      const n = square.tokens.length;  // n = d_k: the only case where Q K runs
      return {
        tokens: square.tokens,
        spec: { Q: rowsOf(square.Q), K: rowsOf(square.K), V: rowsOf(square.V) },
        setup: `Seeded vectors for "${square.tokens.join(' ')}": the sequence length n equals d_k = ${n}.`,
        loud: { tokens, spec: { Q, K, V } },
      };
    }
    case 'no-padding-mask': {
      const keep = 3, pads = padCount;
      const cut = (rows) => padRows(rows.slice(0, keep), 0, pads);
      return {
        tokens: [...tokens.slice(0, keep), ...new Array(pads).fill(PAD)],
        spec: { Q: cut(Q), K: cut(K), V: cut(V), validLens: keep },
        setup: `"${tokens.slice(0, keep).join(' ')}" padded to ${keep + pads} tokens in a batch; its valid length is ${keep}.`,
      };
    }
    default:
      return base;
  }
}

// Patterns of cells a learner may predict. `ctx` = { m, n, hidden: boolean[][] (keys the
// correct computation masks), weights: the correct weights, tokens }.
const PATTERNS = {
  all: () => true,
  none: () => false,
  diagonal: (i, j) => i === j,
  rowMax: (i, j, c) => c.weights[i].indexOf(Math.max(...c.weights[i])) === j,
  maskedCells: (i, j, c) => c.hidden[i][j],
  visibleInMaskedRows: (i, j, c) => !c.hidden[i][j] && c.hidden[i].some(Boolean),
  rowsExceptLast: (i, j, c) => i < c.m - 1,
  fullyMaskedRows: (i, j, c) => c.hidden[i].every(Boolean),
  padKeys: (i, j, c) => c.tokens[j] === PAD,
  padRows: (i, j, c) => c.tokens[i] === PAD,
};

/** The cells a pattern names, as rows of booleans. */
function patternCells(pattern, ctx) {
  return Array.from({ length: ctx.m }, (_, i) => Array.from({ length: ctx.n }, (_, j) => Boolean(PATTERNS[pattern](i, j, ctx))));
}

const SHARED = {
  sharper: 'Scaling every score by one factor is not like adding a constant: it widens or narrows the gaps between scores, and the softmax follows the gaps.',
};

// The choices for "which cells change?" and the reason each wrong one is wrong. Which choice
// is right is not written here: it is the one whose cells equal the engine's.
const LESSONS = {
  'softmax-wrong-axis': {
    choices: [
      { pattern: 'diagonal', label: 'only the diagonal, where each token meets itself', why: 'Nothing singles out the diagonal: every weight, on it or off it, is now divided by the sum of its column instead of the sum of its row, and the two sums differ.' },
      { pattern: 'all', label: 'every cell', why: '' },
      { pattern: 'none', label: 'no cell: the same numbers, normalised another way', why: 'The exponentials are the same, but each is divided by a different sum (its column\'s), so the numbers change.' },
    ],
    explain: 'Each exponential is divided by its column\'s sum instead of its row\'s: the columns now sum to 1 and the rows, which the output needs, do not.',
    code: { lang: 'PyTorch', buggy: 'weights = torch.softmax(scores, dim=-2)  # over the queries', fixed: 'weights = torch.softmax(scores, dim=-1)  # over the keys' },
  },
  'mask-after-softmax': {
    choices: [
      { pattern: 'maskedCells', label: 'only the masked cells above the diagonal', why: 'Those cells are 0 either way. What changes is the rest of each row, which is never rescaled to sum to 1.' },
      { pattern: 'visibleInMaskedRows', label: 'the visible cells of every row that has a masked key', why: '' },
      { pattern: 'none', label: 'no cell: zeroing after the softmax gives the same zeros', why: 'The zeros are the same, but the surviving weights were shared with the masked keys, so they are smaller than they should be.' },
    ],
    explain: 'The softmax ran over every key, so the visible keys share each row\'s total with the masked ones; zeroing those afterwards leaves the row short of 1. The last row hides nothing and does not change.',
    code: { lang: 'PyTorch', buggy: 'weights = torch.softmax(scores, dim=-1) * keep   # keep: 1 = may attend', fixed: 'weights = torch.softmax(scores.masked_fill(keep == 0, float("-inf")), dim=-1)' },
  },
  'no-scaling': {
    choices: [
      { pattern: 'rowMax', label: 'only the largest weight of each row', why: 'If the largest weight grows, the rest must shrink to keep the row summing to 1: every cell moves.' },
      { pattern: 'all', label: 'every cell: each row gets sharper', why: '' },
      { pattern: 'none', label: 'no cell: one factor on every score cancels in the softmax', why: SHARED.sharper },
    ],
    explain: 'Without 1/\u221ad\u2096 the scores are \u221ad\u2096 times larger, the gaps between them widen, and every row moves towards its largest score.',
    code: { lang: 'NumPy', buggy: 'scores = q @ k.T', fixed: 'scores = q @ k.T / np.sqrt(d_k)' },
  },
  'scale-by-dk': {
    choices: [
      { pattern: 'rowMax', label: 'only the largest weight of each row', why: 'When the largest weight shrinks, the others grow to keep the row summing to 1: every cell moves.' },
      { pattern: 'all', label: 'every cell: each row gets flatter', why: '' },
      { pattern: 'none', label: 'no cell: one factor on every score cancels in the softmax', why: SHARED.sharper },
    ],
    explain: 'Dividing by d\u2096 instead of \u221ad\u2096 shrinks every score by a further \u221ad\u2096: the gaps close and each row drifts towards uniform.',
    code: { lang: 'NumPy', buggy: 'scores = q @ k.T / d_k', fixed: 'scores = q @ k.T / np.sqrt(d_k)' },
  },
  'fp16-mask-fill': {
    choices: [
      { pattern: 'maskedCells', label: 'every masked cell', why: 'A masked cell in a row that still sees a real key gets exp(\u2212\u221e) = 0, just as with the fix. Only a row with no visible key goes wrong.' },
      { pattern: 'fullyMaskedRows', label: 'only the rows of queries that see no real key', why: '' },
      { pattern: 'all', label: 'every cell: half precision rounds everything', why: 'Both sides run in float16 here, so their rounding is the same; only the fill differs, and it matters only where a whole row is filled.' },
    ],
    explain: '\u22121e9 does not fit float16 (its largest finite value is 65504), so it is stored as \u2212\u221e. A row that is \u2212\u221e everywhere has maximum \u2212\u221e, and \u2212\u221e \u2212 (\u2212\u221e) is NaN.',
    code: { lang: 'NumPy', buggy: 'scores[~keep] = -1e9   # scores is float16: this stores -inf', fixed: 'scores[~keep] = np.finfo(scores.dtype).min   # -65504 in float16\n# ... softmax ...\nweights[~keep.any(axis=-1)] = 0   # rows with no visible key' },
  },
  'keys-not-transposed': {
    choices: [
      { pattern: 'diagonal', label: 'only the diagonal', why: 'Even on the diagonal, query i is multiplied by column i of K (one feature of every key), not by key i.' },
      { pattern: 'none', label: 'no cell: the shapes fit, so the product is the same', why: 'Fitting shapes only mean the product can be computed. Q K pairs each query with the columns of K, which are features, not keys.' },
      { pattern: 'all', label: 'every cell', why: '' },
    ],
    explain: '(Q K)\u1d62\u2c7c adds q\u1d62[d] \u00d7 K[d, j]: row d of K is a key and column j a feature, so every score mixes one feature of each key instead of comparing the query with key j.',
    code: { lang: 'NumPy', buggy: 'scores = q @ k     # runs only when n == d_k', fixed: 'scores = q @ k.T' },
  },
  'no-causal-mask': {
    choices: [
      { pattern: 'maskedCells', label: 'only the cells above the diagonal', why: 'Those cells gain weight, and since each row still sums to 1, the weights on earlier tokens shrink to make room.' },
      { pattern: 'rowsExceptLast', label: 'every row except the last', why: '' },
      { pattern: 'none', label: 'no cell: the mask only matters when generating', why: 'The mask shapes the weights on every forward pass; without it, training lets each position read the token it must predict.' },
    ],
    explain: 'Each row is renormalised over more keys, so all of its cells change. The last token has no future to leak, so its row stays the same.',
    code: { lang: 'PyTorch', buggy: 'out = F.scaled_dot_product_attention(q, k, v)', fixed: 'out = F.scaled_dot_product_attention(q, k, v, is_causal=True)' },
  },
  'no-padding-mask': {
    choices: [
      { pattern: 'padKeys', label: `only the ${PAD} columns`, why: 'The pad columns gain weight, and because each row sums to 1, every real column loses some.' },
      { pattern: 'padRows', label: `only the ${PAD} tokens' own rows`, why: 'Those rows change, but so does every real token\'s row, which now spreads weight onto the pads.' },
      { pattern: 'all', label: 'every cell', why: '' },
    ],
    explain: 'Without the mask each query puts part of its weight on the pad keys, and each row is renormalised around them, so even the real tokens\' outputs change.',
    code: { lang: 'PyTorch', buggy: 'out = F.scaled_dot_product_attention(q, k, v)', fixed: 'keep = torch.arange(n) < valid_len   # True = may attend\nout = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)' },
  },
};

function sameCells(a, b) {
  return a.length === b.length && a.every((row, i) => row.length === b[i].length && row.every((x, j) => x === b[i][j]));
}

/** The choice (index) whose pattern equals the engine's changed cells, or -1 if none does. */
function rightChoice(name, cells, ctx) {
  return LESSONS[name].choices.findIndex((c) => sameCells(patternCells(c.pattern, ctx), cells));
}

/** "7 of 25 cells change" from the engine's cells. */
function countSentence(cells) {
  const total = cells.reduce((s, row) => s + row.length, 0);
  const changed = cells.reduce((s, row) => s + row.filter(Boolean).length, 0);
  return `${changed} of ${total} weights change by more than 10\u207b\u2076.`;
}

/**
 * Judges the learner's choice against the engine's cells.
 * @returns { ok: true, close, message, hint } (message: the answer and the reason; hint: why the pick is wrong, for a first miss)
 */
function judge(name, index, cells, ctx) {
  const lesson = LESSONS[name];
  const right = rightChoice(name, cells, ctx);
  const picked = lesson.choices[index];
  const count = countSentence(cells);
  if (index === right) return { ok: true, close: true, message: `Right. ${count} ${lesson.explain}` };
  const answer = right >= 0 ? `The engine's answer: ${lesson.choices[right].label}. ` : 'None of these is exactly right. ';
  // A first miss hears why its pick is wrong, not which one is right.
  return { ok: true, close: false, message: `Not quite. ${picked.why} ${answer}${count}`,
    hint: picked.why || 'Follow one row through the mistaken computation: which of its weights come out different?' };
}

// Below this a figure is float32 rounding, not a symptom: the weights are float32 (one unit in
// the last place near 1 is 6e-8) and the engine counts a weight as changed only beyond 1e-6.
const ROUNDING = 1e-6;

/** An engine figure as shown: "0.4133", "0", or "0, up to rounding" for float32 noise such as 6e-8. */
function figureValue(x) {
  if (x === null) return 'none: the product failed';
  return x !== 0 && Math.abs(x) < ROUNDING ? '0, up to rounding' : num(x, 4);
}

/** One figure as a line: "largest |row sum - 1|: 0.4133 (correct: 0, up to rounding)". */
function figureLine(f) {
  return `${f.label}: ${figureValue(f.value)} (correct: ${figureValue(f.correctValue)})`;
}

/** The largest |difference| of the weights, ignoring NaN (for the colour range). */
function differenceRange(rows) {
  let worst = 0;
  for (const row of rows) for (const x of row) if (Number.isFinite(x)) worst = Math.max(worst, Math.abs(x));
  return worst;
}

// The mask each mistake leaves out of its mistaken computation (the engine's mistakes.cpp);
// every other mistake applies the correct computation's masks, before or after the softmax.
const FORGETS = { 'no-causal-mask': 'causal', 'no-padding-mask': 'validLens' };

/** The masks of a scenario's spec that the mistaken computation applies: { causal, validLens, mask }. */
function mistakenMasks(name, spec) {
  const masks = { causal: spec.causal, validLens: spec.validLens, mask: spec.mask };
  if (FORGETS[name]) delete masks[FORGETS[name]];
  return masks;
}

/** What a hatched cell is in each picture of a mistake: the key beside each map. */
function maskLabels(name) {
  const before = 'masked (\u2212\u221e before softmax)';
  return {
    correct: before,
    mistaken: name === 'mask-after-softmax' ? 'masked (set to 0 after the softmax)'
      : name === 'fp16-mask-fill' ? 'masked (\u22121e9, stored as \u2212\u221e in float16)' : before,
    difference: 'masked in both: no difference',
  };
}

/**
 * The cells a picture draws as masked (hatched): those `masked` marks, unless the picture's
 * value there is NaN (the half-precision mistake's NaN is its symptom, drawn as such).
 * @param masked rows of booleans; values rows of numbers (the picture's)
 */
function drawnMasked(masked, values) {
  return masked.map((row, i) => row.map((m, j) => m && !Number.isNaN(values[i][j])));
}

module.exports = { PAD, PAD_COUNTS, DEFAULT_PADS, DK_CHOICES, DEFAULT_DK, wideExample, LESSONS, PATTERNS, scenario, squareExample, patternCells, rightChoice, judge, figureValue, figureLine, countSentence, differenceRange, padRows,
  mistakenMasks, drawnMasked, maskLabels };
