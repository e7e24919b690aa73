'use strict';
// The base of every widget: reads the author's data, waits for the shared engine, shows a
// readable message inside the widget if anything is wrong, and keeps shareable state in
// the URL hash. Subclasses implement setup(lab, data) and, if they keep state, restore().

const { h } = require('./dom.js');
const { getLab } = require('./engine.js');
const { readAuthorData } = require('../ui/author-data.js');
const hashState = require('../ui/hash-state.js');
const { injectStyles } = require('./styles.js');

class LabElement extends HTMLElement {
  /** JSON keys this widget accepts besides tokens and tensors. */
  static get jsonKeys() { return ['options']; }

  connectedCallback() {
    if (this._started) return;
    this._started = true;
    injectStyles(this.ownerDocument);
    this.classList.add('al-widget');
    this._hashListener = () => this.guard(() => this.restore && this.restore(this.readState()));
    window.addEventListener('hashchange', this._hashListener);
    // While the page is still being parsed, the element is connected before its children
    // (the author's JSON) exist: wait for the whole document first.
    const doc = this.ownerDocument;
    if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', () => this.start(), { once: true });
    else this.start();
  }

  disconnectedCallback() {
    window.removeEventListener('hashchange', this._hashListener);
  }

  async start() {
    const script = this.querySelector(':scope > script[type="application/json"]');
    this._json = script ? script.textContent : null;
    this.replaceChildren(h('p', { class: 'al-loading' }, 'Loading the attention engine\u2026'));
    try {
      const data = readAuthorData(this.localName, { tokens: this.getAttribute('tokens') }, this._json, this.constructor.jsonKeys);
      const lab = await getLab();
      this.lab = lab;
      this.replaceChildren();
      this.setup(lab, data);
      this.dataset.ready = 'true';
      this.dispatchEvent(new CustomEvent('al-ready', { bubbles: true }));
    } catch (err) {
      this.showError(err);
    }
  }

  /** Runs fn; any error becomes the in-widget message instead of breaking the page. */
  guard(fn) {
    try {
      return fn();
    } catch (err) {
      this.showError(err);
      return undefined;
    }
  }

  showError(err) {
    const message = err && err.message ? err.message : String(err);
    this.dataset.ready = 'error';
    this.replaceChildren(h('div', { class: 'al-error', role: 'alert' },
      h('strong', {}, 'This widget could not be shown. '),
      h('span', { class: 'al-error-message' }, message)));
    if (typeof console !== 'undefined') console.warn(`${this.localName}: ${message}`);
  }

  /** Prefix for this widget's keys in the URL hash: its id, else its tag and position. */
  get stateKey() {
    if (this.id) return this.id;
    const same = Array.from(this.ownerDocument.querySelectorAll(this.localName));
    const index = same.indexOf(this);
    return index > 0 ? `${this.localName}-${index + 1}` : this.localName;
  }

  readState() {
    return hashState.read(window.location.hash, this.stateKey);
  }

  /** Writes state to the URL hash, at most every 200 ms (browsers throttle history calls). */
  saveState(state) {
    this._pendingState = state;
    if (this._saveTimer) return;
    this._saveTimer = setTimeout(() => {
      this._saveTimer = null;
      this.writeState(this._pendingState);
    }, 200);
  }

  writeState(state) {
    const next = hashState.write(window.location.hash, this.stateKey, state);
    if (next !== window.location.hash && !(next === '' && window.location.hash === '')) {
      window.history.replaceState(null, '', next || window.location.pathname + window.location.search);
    }
  }

  /** A boolean attribute-or-default helper: attr="false" turns a default-on feature off. */
  flag(name, fallback) {
    const v = this.getAttribute(name);
    if (v === null) return fallback;
    return v !== 'false' && v !== '0';
  }

  number(name, fallback) {
    const v = this.getAttribute(name);
    const n = v === null ? NaN : Number(v);
    return Number.isFinite(n) ? n : fallback;
  }
}

module.exports = { LabElement, hashState };
