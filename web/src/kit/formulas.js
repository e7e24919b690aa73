'use strict';
// Formulas typeset at build time: 'al:formulas' is made by scripts/build.js from
// web/src/ui/formula-tex.js with KaTeX (MathML output).
const { h, mathml } = require('./dom.js');
const RENDERED = require('al:formulas');

/** The formula `id` as spans of MathML, each part tagged with its role for highlighting. */
function formula(id, active = []) {
  const parts = RENDERED[id];
  return h('span', { class: 'al-formula' }, parts.map(([content, role]) =>
    h('span', { class: `al-term${role && active.includes(role) ? ' al-term-active' : ''}`, dataset: role ? { term: role } : {} },
      mathml(['math', ['semantics', ...content]]))));
}

module.exports = { formula };
