'use strict';
// <attention-trainer>'s two charts as options for kit/svg.js's lineChart, DOM-free: the loss
// with the step an induction head formed marked, and what the heads do (the best induction and
// previous-token scores of the engine's per-step record), or, on copy, reverse and sort, how
// often the answer is right. tests/node import it.

const { fixed, grouped, counted } = require('./format.js');
const { FORMED } = require('./training-log.js');

/**
 * The loss chart's and the score chart's options.
 * @param log a TrainingLog; info the trainer's info (uniformLoss, recordsHeads);
 *   maxSteps the run's length; logScale the loss on a log axis
 * @returns [lossOpts, scoreOpts]
 */
function trainerCharts(log, info, { maxSteps, logScale }) {
  const formed = log.formed;
  const marks = formed ? [{ x: formed.step, label: `induction head, step ${grouped(formed.step)}` }] : [];
  const xMax = Math.max(maxSteps, log.steps);
  const loss = log.lossSeries(300);
  const ys = loss.ys.filter(Number.isFinite);
  const top = ys.length ? Math.max(...ys) : info.uniformLoss;
  const bottom = ys.length ? Math.min(...ys) : 1;
  const lossOpts = {
    title: 'Training loss', desc: log.steps ? `Mean loss over the scored positions after ${counted(log.steps, 'step')}: ${fixed(log.lastLoss(), 3)} at the last step${formed ? `; an induction head formed at step ${grouped(formed.step)}` : ''}.` : 'No step yet.',
    xLabel: 'step', yLabel: logScale ? 'loss (log scale)' : 'loss (nats)', xMin: 0, xMax,
    xs: loss.xs.length ? loss.xs : [0], yMax: logScale ? Math.max(top, 1e-3) : Math.max(1, Math.ceil(top)),
    ...(logScale ? { yLog: true, yMin: Math.max(1e-4, Math.min(bottom, top / 10)) } : {}),
    series: [{ name: loss.per > 1 ? `loss (mean of each ${loss.per} steps)` : 'loss', ys: loss.xs.length ? loss.ys : [null], cls: 'al-curve' }],
    marks,
  };
  const scoreOpts = info.recordsHeads ? {
    // the engine's record of every step: the same seed draws the same curves
    title: 'What the heads do', desc: log.steps ? `After ${counted(log.steps, 'step')} the best induction score is ${fixed(log.last('induction'), 2)} and the best previous-token score on the first copy ${fixed(log.last('previousToken'), 2)}.` : 'No step yet.',
    xLabel: 'step', yLabel: 'score (0 to 1)', yMax: 1,
    series: [{ name: 'best induction score', key: 'induction', cls: 'al-curve' }, { name: 'best previous-token score, first copy', key: 'previousToken', cls: 'al-curve-2' }],
    guides: [{ y: FORMED, label: `induction head from ${FORMED}` }], marks: marks.map((m) => ({ ...m, low: true })),
  } : {
    // copy, reverse, sort: no induction to score; how often the answer is right is what the heads are for
    title: 'How often the answer is right', desc: log.steps ? `At step ${grouped(log.steps)} the model got ${Math.round(100 * log.last('accuracies'))}% of the answer\u2019s tokens in its batch right.` : 'No step yet.',
    xLabel: 'step', yLabel: 'accuracy (0 to 1)', yMax: 1,
    series: [{ name: 'accuracy on the answer (each batch)', key: 'accuracies', cls: 'al-curve' }],
  };
  let xs = [0];
  scoreOpts.series = scoreOpts.series.map(({ key, ...ser }) => {
    const line = log.series(key, 300);
    if (line.xs.length) xs = line.xs;
    return { ...ser, ys: line.xs.length ? line.ys : [null] };
  });
  Object.assign(scoreOpts, { xMin: 0, xMax, xs });
  return [lossOpts, scoreOpts];
}

module.exports = { trainerCharts };
