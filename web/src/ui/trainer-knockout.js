'use strict';
// <attention-trainer>'s knock-out mode and composition view, DOM-free: which heads are knocked
// out (and how a link writes them), what a knock-out did in words, the verdict on the learner's
// prediction of which heads the model cannot do without, and the composition scores as a grid
// for the kit's heatmap view. Every number is the engine's (Trainer.ablate, composition()).
// tests/node import it.

const { fixed } = require('./format.js');
const colors = require('./colors.js');

const MODES = ['zero', 'mean'];
const KINDS = [
  { value: 'k', label: 'K-composition', what: 'the later head\u2019s keys read what the earlier head wrote' },
  { value: 'q', label: 'Q-composition', what: 'the later head\u2019s queries read what the earlier head wrote' },
  { value: 'v', label: 'V-composition', what: 'the later head\u2019s values carry what the earlier head wrote' },
];

const headName = ([layer, head]) => `layer ${layer} head ${head}`;
const shortName = ([layer, head]) => `${layer}.${head}`;

/** A list of heads in words: "layer 1 head 0 and layer 1 head 1". */
function headsText(heads) {
  const names = heads.map(headName);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Heads sorted by layer, then head (the order the engine's per-head arrays use). */
const sorted = (heads) => heads.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);

/** `heads` with [layer, head] added, or taken away if it was there. */
function toggle(heads, layer, head) {
  const has = heads.some(([l, k]) => l === layer && k === head);
  return has ? heads.filter(([l, k]) => l !== layer || k !== head) : sorted([...heads, [layer, head]]);
}

/** A link's knocked-out heads ("0.1-1.0"): the valid pairs for a model of `layers` x `heads`, once each; anything else dropped. */
function parseKnocked(text, layers, heads) {
  if (typeof text !== 'string' || !text) return [];
  const out = [];
  for (const part of text.split('-', 256)) {
    const m = /^(\d{1,2})\.(\d{1,2})$/.exec(part);
    if (!m) continue;
    const pair = [Number(m[1]), Number(m[2])];
    if (pair[0] < layers && pair[1] < heads && !out.some(([l, k]) => l === pair[0] && k === pair[1])) out.push(pair);
  }
  return sorted(out);
}

/** The link's form of a set of heads: "0.1-1.0" ('' for none). */
const formatKnocked = (heads) => sorted(heads).map(shortName).join('-');

/**
 * Whether a knock-out matters: the one rule the widget and the lesson use. A head "matters" when
 * knocking it out takes the loss on the scored positions more than half the way from the trained
 * model's loss back to a uniform guess's (ln vocab); never while the model does no better than that guess.
 */
function matters(result, uniformLoss) {
  const base = result.baseline.scoredLoss;
  // a model no better than a uniform guess has learned nothing a head could carry
  return base < uniformLoss && result.scoredLoss - base > (uniformLoss - base) / 2;
}

/** A loss as the panel shows it: three decimals under 0.1 (a trained model's 0.004 is not 0.00), else two. */
const lossText = (x) => fixed(x, x < 0.1 ? 3 : 2);

/**
 * What one knock-out did, in words: the loss on the scored positions with every head and with
 * these knocked out, against a uniform guess; and, with head scores, each head's induction score after.
 * @param r TrainingSession.ablate's figures; info the trainer's info (uniformLoss, recordsHeads, options)
 * @returns { loss, scores: [{ name, induction, before, knocked }] | null }
 */
function knockoutText(r, info) {
  const u = fixed(info.uniformLoss, 2);
  const what = info.recordsHeads ? 'loss on the repeat' : 'loss on the answer';
  if (!r.heads.length) return { loss: `With every head the ${what} is ${lossText(r.baseline.scoredLoss)} nats (a uniform guess: ${u}). Knock a head out to see what it does.`, scores: null };
  const how = r.mode === 'mean' ? `replaced by ${r.heads.length > 1 ? 'their mean outputs' : 'its mean output'}` : 'knocked out';
  const verdict = r.baseline.scoredLoss >= info.uniformLoss ? 'the model does no better than a uniform guess yet, so no head has anything to lose'
    : r.scoredLoss > info.uniformLoss ? 'worse than a uniform guess'
      : matters(r, info.uniformLoss) ? 'more than half the way back to a uniform guess' : 'less than half the way back to a uniform guess';
  const loss = `With ${headsText(r.heads)} ${how}, the ${what} is ${lossText(r.scoredLoss)} nats, against ${lossText(r.baseline.scoredLoss)} with every head `
    + `and ${u} for a uniform guess: ${verdict}.`;
  if (!info.recordsHeads || !r.induction) return { loss, scores: null };
  const { heads } = info.options;
  const scores = Array.from(r.induction, (x, i) => {
    const pair = [Math.floor(i / heads), i % heads];
    return { name: headName(pair), induction: x, knocked: r.heads.some(([l, k]) => l === pair[0] && k === pair[1]) };
  });
  return { loss, scores };
}

/**
 * The verdict on "which heads can the model not do without?".
 * @param predicted [layer, head] pairs the learner picked (maybe none)
 * @param singles one ablate result per head, each head alone (zero mode); layersOut one per layer, its heads together
 * @returns { ok, lines: [string], cover: [string] }
 */
function judgeKnockout(predicted, singles, layersOut, uniformLoss) {
  const key = (p) => shortName(p);
  const said = new Set(predicted.map(key));
  const needed = singles.filter((r) => matters(r, uniformLoss)).map((r) => r.heads[0]);
  const got = new Set(needed.map(key));
  const ok = said.size === got.size && [...said].every((k) => got.has(k));
  const loss = (r) => lossText(r.scoredLoss);
  const lines = [];
  const yours = predicted.length ? headsText(sorted(predicted)) : 'no head';
  lines.push(`${ok ? 'Right' : 'Not quite'}: you picked ${yours}. Knocked out alone, ${needed.length ? `${headsText(needed)} ${needed.length > 1 ? 'each take' : 'takes'}` : 'no head takes'} the loss `
    + `more than half the way back to a uniform guess (${fixed(uniformLoss, 2)}).`);
  lines.push(`Alone: ${singles.map((r) => `${headName(r.heads[0])} ${loss(r)}`).join('; ')} (every head: ${loss(singles[0].baseline)}).`);
  // A layer whose heads each matter little alone but a lot together covers for itself.
  const cover = [];
  for (const r of layersOut) {
    const layer = r.heads[0][0];
    const alone = singles.filter((s) => s.heads[0][0] === layer);
    if (alone.length > 1 && alone.every((s) => !matters(s, uniformLoss)) && matters(r, uniformLoss)) {
      cover.push(`Layer ${layer}\u2019s heads cover for each other: knocked out one at a time they take the loss only to ${alone.map(loss).join(' and ')}, `
        + `but ${alone.length === 2 ? 'both' : `all ${alone.length}`} together take it to ${loss(r)}. A single knock-out can say a head does little when another head does the same job.`);
    }
  }
  return { ok, lines, cover };
}

/**
 * The composition scores as a heatmap: rows are the heads of every layer but the last (earlier),
 * columns the heads of every layer but the first (later); a pair that is not earlier-to-later is masked.
 * @param c composition() ({ composition: [{ from, to, q, k, v }] }); layers, heads the model's shape; kind 'q' | 'k' | 'v'
 */
function compositionGrid(c, layers, heads, kind) {
  const rows = [], cols = [];
  for (let l = 0; l < layers - 1; l++) for (let k = 0; k < heads; k++) rows.push([l, k]);
  for (let l = 1; l < layers; l++) for (let k = 0; k < heads; k++) cols.push([l, k]);
  const at = new Map(c.composition.map((e) => [`${shortName(e.from)}>${shortName(e.to)}`, e[kind]]));
  const weights = rows.map((r) => cols.map((col) => {
    const v = at.get(`${shortName(r)}>${shortName(col)}`);
    return typeof v === 'number' ? v : 0;
  }));
  const masked = rows.map((r) => cols.map((col) => col[0] <= r[0] || typeof at.get(`${shortName(r)}>${shortName(col)}`) !== 'number'));
  return { rowLabels: rows.map(shortName), colLabels: cols.map(shortName), weights, masked };
}

/**
 * Viridis stretched over [0, top] (top: the grid's largest score, or 1 if none), as the heatmap
 * view takes a scale: composition scores sit well under 1, and the strongest pair should stand out.
 */
function compositionScale(weights) {
  const top = Math.max(0, ...weights.flat().filter(Number.isFinite)) || 1;
  const at = (v) => v / top;
  return { color: (v) => colors.color(at(v)), rgb: (v) => colors.rgb(at(v)), textColor: (v) => colors.textColor(at(v)), gradient: colors.gradient, low: '0', high: fixed(top, 2),
    stops: Array.from({ length: 11 }, (_, k) => [k / 10, colors.color(k / 10)]) };
}

/**
 * The strongest pairs of one kind of composition, in words (null when there is none): every pair
 * equal to the top at the two decimals shown, and, when the untrained model's scores are given
 * (c.untrained), whether the top stands above what they reach by chance.
 */
function strongestText(c, kind) {
  const entries = c.composition.filter((e) => typeof e[kind] === 'number');
  if (!entries.length) return null;
  const best = Math.max(...entries.map((e) => e[kind]));
  const tops = entries.filter((e) => fixed(e[kind], 2) === fixed(best, 2));
  const rest = entries.filter((e) => !tops.includes(e)).map((e) => e[kind]);
  const k = KINDS.find((x) => x.value === kind);
  const chance = (c.untrained || []).map((e) => e[kind]).filter((x) => typeof x === 'number');
  const range = (xs) => (fixed(Math.min(...xs), 2) === fixed(Math.max(...xs), 2) ? fixed(xs[0], 2) : `${fixed(Math.min(...xs), 2)} to ${fixed(Math.max(...xs), 2)}`);
  const untrained = chance.length ? `untrained, the same heads scored ${range(chance)}` : '';
  if (chance.length && best <= Math.max(...chance)) {
    return `No pair stands out in ${k.label}: the strongest, ${fixed(best, 2)}, is within what the same heads scored untrained (${range(chance)}), as unrelated matrices do.`;
  }
  const pairs = tops.map((e) => `${headName(e.from)} \u2192 ${headName(e.to)}`).join(' and ');
  const others = rest.length ? `the other pairs ${range(rest)}` : '';
  const aside = [others, untrained].filter(Boolean).join('; ');
  return `The strongest ${k.label}: ${pairs}, ${fixed(best, 2)}${aside ? ` (${aside})` : ''}: ${k.what}.`;
}

/** Each head's copying score in words. */
function copyingText(c) {
  return `Copying scores (from \u22121 to 1; near 1: attending to a token raises that same token\u2019s logit): ${c.copying.map((x) => `${headName([x.layer, x.head])}: ${x.score === null ? 'none' : fixed(x.score, 3)}`).join('; ')}.`;
}

/**
 * Every knock-out of a run as CSV: one row each, with the induction score of every head after
 * (when the task scores heads; `heads` per layer names them). Full precision: the engine's numbers as they came.
 */
function knockoutCSV(history, heads) {
  const n = history.length && history[0].induction ? history[0].induction.length : 0;
  const names = Array.from({ length: n }, (_, i) => `induction after L${Math.floor(i / heads)}H${i % heads}`);
  const lines = [['step', 'heads knocked out', 'mode', 'loss on the scored positions', 'loss on every position', 'with every head: scored', 'with every head: every position', ...names].join(',')];
  for (const r of history) {
    lines.push([r.step, r.heads.map(shortName).join(' '), r.mode, r.scoredLoss, r.loss, r.baseline.scoredLoss, r.baseline.loss,
      ...(r.induction ? Array.from(r.induction) : [])].map(String).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

module.exports = { MODES, knockoutCSV, compositionScale, KINDS, headName, headsText, toggle, parseKnocked, formatKnocked, matters, knockoutText, judgeKnockout, compositionGrid, strongestText, copyingText };
