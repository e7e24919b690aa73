'use strict';
// The softmax demo's rules, DOM-free: which inputs it accepts, and what to say about the
// engine's float32 naive path next to its safe path.

const { num } = require('./format.js');
const { typed } = require('./predict.js');

const FLOAT32_MAX = 3.4028234663852886e38;
const MAX_VALUES = 12;

/**
 * Reads the typed inputs.
 * @returns { values: number[] } or { error: string } (a sentence for the reader)
 */
function parseValues(text) {
  const parts = String(text).split(/[\s,]+/).filter(Boolean);
  if (!parts.length || parts.length > MAX_VALUES) {
    return { error: `Type 1 to ${MAX_VALUES} numbers separated by commas (you typed ${parts.length}).` };
  }
  const values = parts.map((p) => (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(p.replace('\u2212', '-')) ? Number(p.replace('\u2212', '-')) : NaN));
  const bad = parts.find((p, i) => Number.isNaN(values[i]));
  if (bad !== undefined) return { error: `${typed(bad)} is not a number. Type 1 to ${MAX_VALUES} numbers separated by commas, like 1000, 1001, 1002.` };
  const huge = parts.find((p, i) => Math.abs(values[i]) > FLOAT32_MAX);
  if (huge !== undefined) {
    return { error: `${typed(huge).slice(1, -1)} is beyond what a float32 can hold (about \u00b13.4e38), so the engine cannot take it. Try a number such as 100 or 1000.` };
  }
  return { values };
}

/** "x − 4" or "x − (−1000)": the shift as a reader would write it. */
function shiftLabel(rowMax) {
  const m = num(rowMax, 4);
  return `e^(x \u2212 ${rowMax < 0 ? `(${m})` : m})`;
}

/**
 * What happened on the naive path, from the engine's float32 numbers (lab.explainRow).
 * @param naive { values: the inputs, expRaw: number[], sumRaw, naiveWeights: number[],
 *   rowMax: the largest input, naiveError: largest |naive - safe weight| }
 * @returns { kind: 'agree' | 'overflow' | 'underflow' | 'differ', message }
 */
function compare({ values, expRaw, sumRaw, naiveWeights, rowMax: largest, naiveError: diff }) {
  const nanCount = naiveWeights.filter(Number.isNaN).length;
  const smallest = Math.min(...values);
  const of = (k) => `${k} of ${naiveWeights.length}`;
  if (expRaw.some((e) => e === Infinity)) {
    const first = values[expRaw.indexOf(Infinity)];
    return {
      kind: 'overflow',
      message: `Overflow: in float32, e^${num(first, 4)} is beyond the largest number (about 3.4e38) and becomes \u221e, ` +
        `so the naive sum is ${num(sumRaw)} and \u221e \u00f7 \u221e is NaN (${of(nanCount)} naive weights). ` +
        `Subtracting the maximum (${num(largest, 4)}) first keeps every exponential at most 1.`,
    };
  }
  if (sumRaw === 0) {
    return {
      kind: 'underflow',
      message: `Underflow: in float32, e^${num(largest, 4)} is too small to represent and becomes 0, and so does every other term, ` +
        `so the naive sum is 0 and 0 \u00f7 0 is NaN (${of(nanCount)} naive weights). ` +
        `Subtracting the maximum (${num(largest, 4)}) first makes the largest term e^0 = 1.`,
    };
  }
  if (nanCount === 0 && diff <= 1e-6) {
    const under = expRaw.filter((e) => e === 0).length;
    return {
      kind: 'agree',
      message: under
        ? `Here both ways agree: ${under} naive exponential${under === 1 ? '' : 's'} underflowed to 0 in float32 (e^${num(smallest, 4)}), but the true weight${under === 1 ? ' is' : 's are'} that small anyway.`
        : 'Here both ways agree: no exponential overflowed or underflowed in float32.',
    };
  }
  return { kind: 'differ', message: `The naive weights differ from the safe ones by up to ${num(diff, 6)}: float32 rounding in the naive sum.` };
}

module.exports = { parseValues, shiftLabel, compare, FLOAT32_MAX, MAX_VALUES };
