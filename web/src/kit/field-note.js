'use strict';
// The line beside a widget's input boxes that says what was wrong with what the reader typed,
// while the widget keeps its last good view. A refused box is marked aria-invalid and described
// by the line, so a screen reader hears the reason when it is focused.

const { h, uid } = require('./dom.js');

class FieldNote {
  constructor() {
    this.el = h('p', { class: 'al-field-message', id: uid('al-msg'), 'aria-live': 'polite' });
    this.refused = new Set();
  }

  /** Ties an input to this line (aria-describedby); returns the input. */
  watch(input) {
    const ids = (input.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
    if (!ids.includes(this.el.id)) input.setAttribute('aria-describedby', [...ids, this.el.id].join(' '));
    return input;
  }

  /** Says why `input`'s text was refused (the line holds the latest reason). */
  refuse(input, text) {
    this.watch(input);
    input.setAttribute('aria-invalid', 'true');
    this.refused.add(input);
    this.el.textContent = text;
  }

  /** `input` holds a good value again: its mark goes, and the line once no box it describes is refused. */
  accept(input) {
    input.removeAttribute('aria-invalid');
    this.refused.delete(input);
    if (!this.refused.size) this.el.textContent = '';
  }
}

module.exports = { FieldNote };
