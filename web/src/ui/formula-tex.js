'use strict';
// TeX of every formula the widgets show, split into parts so the active part can be
// highlighted. The bundle build typesets each part to MathML with KaTeX; nothing is
// typeset in the reader's browser.

const FORMULAS = {
  project: [['q_i = x_i W_Q', 'q'], [',\\;', null], ['k_i = x_i W_K', 'k'], [',\\;', null], ['v_i = x_i W_V', 'v']],
  score: [['s_{ij}', 's'], ['=', null], ['q_i', 'q'], ['\\cdot', null], ['k_j', 'k'], ['=', null], ['\\textstyle\\sum_d q_{i,d}\\,k_{j,d}', 'terms']],
  softmax: [['w_{ij}', 'w'], ['=', null], ['\\operatorname{softmax}_j', 'softmax'], ['\\left(\\frac{s_{ij}}{\\sqrt{d_k}}\\right)', 'scaled'],
    ['=', null], ['\\frac{e^{s_{ij}/\\sqrt{d_k}}}{\\sum_{j\'} e^{s_{ij\'}/\\sqrt{d_k}}}', 'exp']],
  sum: [['o_i', 'o'], ['=', null], ['\\textstyle\\sum_j', 'sum'], ['w_{ij}', 'w'], ['v_j', 'v']],
};

module.exports = { FORMULAS };
