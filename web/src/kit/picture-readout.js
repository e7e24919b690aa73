'use strict';
// A picture of a matrix in colours only (the merged heads, the KV cache) keeps each number in
// its cell's tooltip and in text for screen readers. A finger has no hover: a tap (or click)
// on a cell reads its number out in a readout line, and outlines the cell read.

const { h } = require('./dom.js');

const HINT = 'Tap or hover a coloured cell to read its number.';

/**
 * @param box the element holding the pictures' tables (redrawn freely: one listener on the box);
 *   each row is a <th> naming the token, then one <td title="number"> per column
 * @param line a readout the widget already shows (its heatmaps'), else one is made
 * @returns { line } to place under the pictures (when made here), and reset() for after a redraw
 */
function pictureReadout(box, line = h('p', { class: 'al-readout' }, HINT)) {
  const hint = line.textContent;
  let shown = null;
  box.addEventListener('click', (e) => {
    const td = e.target.closest && e.target.closest('td[title]');
    if (!td || !box.contains(td)) return;
    const tr = td.parentElement;
    const title = td.closest('.al-matrix') && td.closest('.al-matrix').querySelector('.al-matrix-title');
    const col = Array.prototype.indexOf.call(tr.querySelectorAll('td'), td);
    const token = tr.querySelector('th') ? tr.querySelector('th').textContent : '';
    line.textContent = shown = `${title ? `${title.textContent}: ` : ''}\u201c${token}\u201d, column ${col + 1}: ${td.title}`;
    for (const old of box.querySelectorAll('td.al-read')) old.classList.remove('al-read');
    td.classList.add('al-read');
  });
  // After a redraw the number read is gone; a shared line showing something else keeps it.
  return { line, reset: () => { if (line.textContent === shown) line.textContent = hint; shown = null; } };
}

module.exports = { pictureReadout };
