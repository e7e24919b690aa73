'use strict';
// The "your turn" prompt about one query row, shared by the stepper and the heatmap: the
// reader types the row's scores or weights (judged by ui/row-question.js against the engine)
// or asks to see them.

const { PredictView } = require('./predict-view.js');
const { question, judgeRow } = require('../ui/row-question.js');
const { vector } = require('../ui/format.js');

const rowsOf = (t) => Array.from({ length: t.shape[0] }, (_, r) => Array.from(t.data.subarray(r * t.shape[1], (r + 1) * t.shape[1])));

/**
 * @param opts { kind: 'score' | 'softmax', i: the query row, token, inputs() -> the widget's
 *   current { Q, K, tokens }, explain() -> the engine's explainRow of row i, plain() -> the same
 *   row without the scaling (or null), skip: the label of the button that shows the row, announceSkip: that
 *   button's reveal is said in the verdict line (no narration says it), onReveal() }
 */
function rowPrompt({ kind, i, token, inputs, explain, plain, skip, announceSkip = false, onReveal }) {
  const score = kind === 'score';
  const prompt = new PredictView({
    question: question(kind, token, inputs().tokens.length),
    input: { label: score ? 'scores' : 'weights', placeholder: score ? 'e.g. 1, 0, 2, ...' : 'e.g. 0.1, 0.3, ...' },
    judge: (text) => {
      const { Q, K, tokens } = inputs();
      return judgeRow(kind, text, { d: explain(), tokens, q: rowsOf(Q)[i], keys: rowsOf(K), plain: score ? null : plain() });
    },
    skip,
    // Where nothing else narrates the reveal, the verdict line says the row that appeared.
    skipMessage: announceSkip ? () => `The ${score ? 'scores' : 'weights'} of "${token}": ${vector(explain()[score ? 'scores' : 'weights'].data, score ? 2 : 4)}.` : undefined,
    onReveal,
    printAnswer: () => vector(explain()[score ? 'scores' : 'weights'].data, score ? 2 : 4),
  });
  prompt.root.classList.add('al-row-question');
  return prompt;
}

module.exports = { rowPrompt };
