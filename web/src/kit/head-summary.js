'use strict';
// The head summary of <model-attention>: a table with a row per head and the engine's scores
// (lab.headSummary), sorted by any score (the column headers are buttons) and filtered by one
// ("at least ..."), so that an author finds the previous-token heads, the sinks, the induction
// heads and the broad ones. Each head's name opens it in the model view.

const { h, uid, setText } = require('./dom.js');
const { SCORES, sortRows, filterRows, presentScores, missingReason } = require('../ui/head-table.js');
const { layerName, headName } = require('../ui/attention-data.js');
const { fixed } = require('../ui/format.js');

class HeadSummary {
  /** @param opts { onOpen(layer, head), onChange(): the order or filter changed (for state) } */
  constructor(opts) {
    this.opts = opts;
    this.st = { sort: 'layer', dir: 'ascending', filter: '', min: 0.5 };
    const sortId = uid(), filterId = uid(), minId = uid();
    this.sortSelect = h('select', { id: sortId, onchange: () => this.sortBy(this.sortSelect.value) });
    this.dirButton = h('button', { type: 'button', onclick: () => this.change({ dir: this.st.dir === 'ascending' ? 'descending' : 'ascending' }) });
    this.filterSelect = h('select', { id: filterId, onchange: () => this.change({ filter: this.filterSelect.value }) });
    this.minInput = h('input', { id: minId, type: 'number', step: '0.05', min: '0', value: '0.5', inputmode: 'decimal',
      onchange: () => { const v = Number(this.minInput.value); if (this.minInput.value !== '' && Number.isFinite(v)) this.change({ min: v }); } });
    this.count = h('p', { class: 'al-muted', 'aria-live': 'polite' });
    this.table = h('table', { class: 'al-table al-summary-table al-stack' });
    this.note = h('p', { class: 'al-muted' });
    this.root = h('div', { class: 'al-head-summary' },
      h('div', { class: 'al-controls', part: 'controls' },
        h('label', { for: sortId }, 'sort by', this.sortSelect), this.dirButton,
        h('label', { for: filterId }, 'show heads whose', this.filterSelect),
        h('label', { for: minId }, 'is at least', this.minInput)),
      this.count, h('div', { class: 'al-scroll', tabindex: '0', role: 'group', 'aria-label': 'Head scores' }, this.table), this.note);
  }

  /** New scores (one row per head, from the engine) for a set. */
  show(set, rows) {
    this.attn = set;
    this.rows = rows;
    this.scores = presentScores(rows);
    this.filterSelect.replaceChildren(h('option', { value: '' }, 'any score'), ...this.scores.map((s) => h('option', { value: s.key }, s.label)));
    this.sortSelect.replaceChildren(h('option', { value: 'layer' }, 'layer and head'), ...this.scores.map((s) => h('option', { value: s.key }, s.label)));
    if (this.st.filter && !this.scores.some((s) => s.key === this.st.filter)) this.st.filter = '';
    if (this.st.sort !== 'layer' && !this.scores.some((s) => s.key === this.st.sort)) this.st.sort = 'layer';
    const missing = SCORES.filter((s) => !this.scores.includes(s)).map((s) => `${s.label} (${missingReason(set, s.key)})`);
    const has = (key) => this.scores.some((s) => s.key === key);
    setText(this.note, [
      `A high score says the head ${this.scores.map((s) => `${s.label.replace(/ \(.*\)$/, '')}: ${s.high}`).join('; ')}. `,
      'Entropy is in nats: 0 for a head that looks at one key, ln k for one spread evenly over k keys.',
      set.queryTokens ? '' : set.causal ? ' The positional scores are means over rows 1 on (row 0 has only itself to see under a causal mask).'
        : ` The positional scores are means over rows 1 on${has('nextToken') ? ', the next token\u2019s over every row but the last' : ''} (row 0\u2019s weight on the first token is its weight on itself).`,
      missing.length ? ` Left out: ${missing.join('; ')}.` : '',
    ].join(''));
    this.render();
  }

  /** Applies a state change (sort, dir, filter, min) and redraws. */
  change(change, notify = true) {
    Object.assign(this.st, change);
    this.render();
    if (notify) this.opts.onChange();
  }

  /** Sorts by a column: its header pressed again turns the order round; a new score starts from the highest. */
  sortBy(key) {
    const dir = this.st.sort === key ? (this.st.dir === 'ascending' ? 'descending' : 'ascending') : key === 'layer' ? 'ascending' : 'descending';
    this.change({ sort: key, dir });
  }

  render() {
    if (!this.rows) return;
    const { sort, dir, filter, min } = this.st;
    this.filterSelect.value = filter;
    this.sortSelect.value = sort;
    setText(this.dirButton, dir === 'ascending' ? 'ascending \u25b2' : 'descending \u25bc');
    this.dirButton.setAttribute('aria-label', `order: ${dir}; press for ${dir === 'ascending' ? 'descending' : 'ascending'}`);
    this.minInput.value = String(min);
    this.minInput.disabled = !filter;
    const shown = sortRows(filterRows(this.rows, filter, min), sort, dir);
    setText(this.count, `${shown.length} of ${this.rows.length} heads${filter ? `: ${SCORES.find((s) => s.key === filter).label} at least ${min}` : ''}, sorted by ${sort === 'layer' ? 'layer and head' : SCORES.find((s) => s.key === sort).label} (${dir}).`);
    const header = (key, label, title) => {
      const current = sort === key;
      return h('th', { scope: 'col', 'aria-sort': current ? dir : 'none' },
        h('button', { type: 'button', class: 'al-sort', title, onclick: () => this.sortBy(key) }, label, h('span', { 'aria-hidden': 'true' }, current ? (dir === 'ascending' ? ' \u25b2' : ' \u25bc') : '')));
    };
    const set = this.attn;
    this.table.replaceChildren(
      h('thead', {}, h('tr', {}, header('layer', 'head', 'Sort by layer, then head'), this.scores.map((s) => header(s.key, s.label, `High: ${s.high}`)))),
      h('tbody', {}, shown.map((r) => h('tr', {},
        h('th', { scope: 'row' }, h('button', { type: 'button', class: 'al-open-link', translate: 'no', onclick: () => this.opts.onOpen(r.layer, r.head),
          dataset: { layer: String(r.layer), head: String(r.head) } }, `${layerName(set, r.layer)}, ${headName(set, r.head)}`)),
        this.scores.map((s) => h('td', { 'data-label': s.label, dataset: { score: s.key } }, r[s.key] === null ? '\u2014' : fixed(r[s.key], 3)))))));
  }
}

module.exports = { HeadSummary };
