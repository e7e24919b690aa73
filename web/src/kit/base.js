'use strict';
// The base of every widget: a custom element that renders into its own shadow root, reads
// its data from attributes, a child <script type="application/json"> or the `data`
// property (and follows them when they change), waits for the shared engine, shows a
// readable message inside itself if anything is wrong, and keeps shareable state in the
// page URL's query string when it has a unique id (the theme and the URL: hosted-element.js).
// Subclasses implement setup(lab, data) (build the view into this.frame; async setups may
// `await this.pause()` between parts), optionally onKey(event) for keys in the frame, viewState()
// (a plain copy of their state) and, if they keep state, restore(urlState) and
// applyAttribute(property, value) for attributes marked `state` in the manifest.

const { h, fitHeadings } = require('./dom.js');
const { getLab } = require('./engine.js');
const { readAuthorData } = require('../ui/author-data.js');
const { parseAttribute } = require('../ui/attributes.js');
const { HostedElement, urlState } = require('./hosted-element.js');
const { adoptStyles } = require('./styles.js');
const { attributesOf } = require('./manifest.js');
const schedule = require('./schedule.js');
const { estimateHeights, reserveConfig } = require('../ui/reserve.js');
const hostPage = require('./host-page.js');

const JSON_SELECTOR = ':scope > script[type="application/json"]';
// Thrown by pause() when the build it belongs to was overtaken.
const STALE = Symbol('stale build');
// Layout work per task while a first view is revealed (unveil()): what is left of a 50 ms
// task under load, with the setup's own work around it.
const REVEAL_BUDGET_MS = 8;

class LabElement extends HostedElement {
  /** JSON keys this widget accepts besides tokens and tensors. */
  static get jsonKeys() { return ['options']; }

  static get observedAttributes() {
    return attributesOf(this.tag).map((a) => a.name);
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root);
    this.frame = h('div', { class: 'al-frame', part: 'frame' });
    // The frame lives as long as the element (rebuilds refill it): one keyboard listener for
    // widgets with an onKey(event), called only while the view is ready.
    this.frame.addEventListener('keydown', (e) => {
      if (this.onKey && this._status === 'ready') this.guard(() => this.onKey(e));
    });
    root.append(this.frame);
    hostPage.keepOwnKeys(root);
    this._status = 'loading';
    this._generation = 0;
    this._data = undefined;
    this._attributes = new Map(attributesOf(this.constructor.tag).map((a) => [a.name, a]));
  }

  /** 'loading', 'ready' or 'error'. */
  get status() { return this._status; }

  /** The widget's current state (what al-change carries); null until it is ready. */
  get state() {
    return this._status === 'ready' ? this.viewState() : null;
  }

  /** A plain copy of the widget's state; widgets with more than `st` override it. */
  viewState() {
    return this.st ? { ...this.st } : {};
  }

  /** Author data from script: the same keys as the child JSON. Setting it rebuilds the widget. */
  get data() { return this._data; }

  set data(value) {
    this._data = value === null ? undefined : value;
    this.scheduleBuild();
  }

  connectedCallback() {
    // Properties a page set before this script defined the element sit on the instance and
    // hide the accessors: move them through the accessors now.
    for (const key of ['data', ...Array.from(this._attributes.values(), (a) => a.property)]) {
      if (Object.prototype.hasOwnProperty.call(this, key)) {
        const value = this[key];
        delete this[key];
        this[key] = value;
      }
    }
    hostPage.track(this, true);
    if (this._pendingState && !this._saveTimer) this._saveTimer = setTimeout(() => this.flushState(), 200);
    this._listeners = new AbortController();
    const { signal } = this._listeners;
    const onUrl = () => this.guard(() => {
      if (this._status === 'ready' && this.restore && this.urlStateAllowed()) this.restore(this.readState());
    });
    window.addEventListener('popstate', onUrl, { signal });
    window.addEventListener('hashchange', onUrl, { signal });
    // The reader's system switching between light and dark: widgets that follow the page
    // repaint what CSS cannot recolour (inline cell colours).
    const scheme = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
    if (scheme && scheme.addEventListener) scheme.addEventListener('change', () => { if (this._built) this.applyTheme(); }, { signal });
    this._observer = new MutationObserver(() => {
      if (this._status !== 'loading' && this.readJsonText() !== this._json) this.scheduleBuild();
    });
    this._observer.observe(this, { childList: true, subtree: true, characterData: true });
    // Reading the page's colours forces a style pass: never while the page is still being
    // parsed (one pass per widget), only once the widget is drawn or redrawn.
    if (this._built) this.applyTheme();
    if (this._built && !this._dirty) return;  // moved in the page: keep the view and its state
    if (!this._built) this.showLoading();
    // The host's colours around the widget are read when the browser reports where the widget
    // is (after a layout it did anyway), not in the widget's first drawing, where reading them
    // would force a style pass of the page.
    this._hostTheme = undefined;
    schedule.watch(this, () => {
      if (this._hostTheme === undefined) this._hostTheme = hostPage.hostTheme(this);
    });
    // The engine starts with the first widget, while the rest of the page is still parsed
    // and painted: its bytes are compiled off the main thread meanwhile. A failure is shown
    // by build().
    getLab().catch(() => {});
    const doc = this.ownerDocument;
    // While the page is still being parsed, the element is connected before its children
    // (the author's JSON) exist: wait for the whole document first.
    if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', () => this.scheduleBuild(), { once: true, signal });
    else this.scheduleBuild();
  }

  /** Moved into another document (adoptNode into a frame): constructed sheets belong to one document. */
  adoptedCallback() {
    adoptStyles(this.shadowRoot);
  }

  disconnectedCallback() {
    hostPage.track(this, false);
    schedule.unwatch(this);
    this._hostTheme = undefined;
    if (this._listeners) this._listeners.abort();
    if (this._observer) this._observer.disconnect();
    // A change not yet in the URL waits until the widget is back on the page: a single-page
    // app pushes the next page's address before it removes the old page, and that address is
    // not this view's to write.
    clearTimeout(this._saveTimer);
    this._saveTimer = null;
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    const spec = this._attributes.get(name);
    if (!spec || name === 'url-state') return;
    if (name === 'theme') {
      this.applyTheme();
      return;
    }
    if (spec.state && this._status === 'ready' && this.applyAttribute) {
      this.guard(() => this.applyAttribute(spec.property, this.attr(spec.name)));
      return;
    }
    this.scheduleBuild();
  }

  /** The parsed value of a declared attribute (undefined when absent); throws a named error when invalid. */
  attr(name, fallback) {
    const value = parseAttribute(this.localName, this._attributes.get(name), this.getAttribute(name));
    return value === undefined ? fallback : value;
  }

  readJsonText() {
    const script = this.querySelector(JSON_SELECTOR);
    return script ? script.textContent : null;
  }

  /** Rebuilds once, after the current task's changes (several attributes set in a row). */
  scheduleBuild() {
    this._dirty = true;
    if (!this.isConnected || this._buildQueued) return;
    this._buildQueued = true;
    queueMicrotask(() => {
      this._buildQueued = false;
      if (this.isConnected) this.build();
    });
  }

  async build() {
    const generation = ++this._generation;
    this._dirty = false;
    this.flushState();  // a redraw re-reads the URL: it must hold the latest state
    this._status = 'loading';
    this._json = this.readJsonText();
    // A rebuild keeps the old view on the page until the new one is complete.
    if (!this._built && !this._stand) this.showLoading();
    try {
      const data = readAuthorData(this.localName, { tokens: this.getAttribute('tokens') },
        this._data !== undefined ? this._data : this._json, this.constructor.jsonKeys, this.constructor.maxJsonLength);
      // A widget far below the viewport starts when the reader scrolls near it: the page's
      // load does only the work of what is in view.
      // Once near, always: a build overtaken by another (an attribute set meanwhile) does not wait again.
      if (!this._near) {
        await schedule.near(this);
        this._near = this.isConnected;
      }
      if (this.overtaken(generation)) return;
      const lab = await getLab();
      // Each widget is set up in tasks of its own, those in view first, so a page of
      // widgets never blocks the main thread in one long task.
      await schedule.turn(this);
      if (this.overtaken(generation)) return;
      this.lab = lab;
      this.applyTheme(this._hostTheme);
      // The view is built off the page, over one task or several (setup may pause between
      // its parts), and shown whole: the page lays it out once, at its final size.
      this.detachFrame();
      this.frame.classList.remove('al-staging');  // left by a first build overtaken while it was shown (unveil)
      this.frame.replaceChildren();
      this.frame.style.minHeight = '';
      await this.setup(lab, data);
      if (this.overtaken(generation)) return;
      fitHeadings(this.frame, this);
      await this.unveil(generation);
      if (this.shown) this.shown();
      this._built = true;
      this._status = 'ready';
      this.emit('al-ready', { state: this.state });
    } catch (err) {
      if (err === STALE) return;
      if (generation === this._generation) {
        this.attachFrame();
        this.showError(err);
      }
    }
  }

  /**
   * For setup: ends the current task and resumes in a later turn (schedule.js), so that a
   * widget with a lot to draw is built in several tasks. Throws STALE, which build() ignores,
   * when the widget was rebuilt or removed meanwhile.
   */
  async pause() {
    const generation = this._generation;
    await schedule.turn(this);
    if (this.overtaken(generation)) throw STALE;
  }

  /**
   * For an update drawn in parts: runs fn in a task after the page's next rendering, so that
   * the parts' style and layout do not add up in one long task; a newer soon() drops this one, and so does a rebuild or
   * removal. While the view is being built off the page, fn runs at once: the view is shown
   * whole, at its final size.
   */
  soon(fn) {
    const token = this._soon = {};
    if (this._stand) {
      fn();
      return;
    }
    const generation = this._generation;
    schedule.afterRendering(this, () => {
      if (this._soon === token && !this.overtaken(generation)) this.guard(fn);
    });
  }

  /**
   * Whether build `generation` should stop: a newer build started, or the element left the
   * page (then it builds again when it comes back, even if it had been drawn before).
   */
  overtaken(generation) {
    if (!this.isConnected) this._dirty = true;
    return generation !== this._generation || !this.isConnected;
  }

  /** Takes the frame off the page, leaving a copy that holds what it showed, until attachFrame. */
  detachFrame() {
    if (this._stand || !this.frame.parentNode) return;
    const stand = this.frame.cloneNode(false);
    stand.append(...this.frame.childNodes);
    this.frame.replaceWith(stand);
    this._stand = stand;
  }

  attachFrame() {
    if (!this._stand) return;
    this._stand.replaceWith(this.frame);
    this._stand = null;
  }

  /**
   * Puts a first-built view on the page in place of the loading line without one long task:
   * the view goes in unseen (the frame keeps the loading line's size, its parts hidden) and
   * its parts are laid out a few at a time, each task within a small budget, then shown
   * together, so the final layout mostly reuses theirs. A view the browser is not drawing
   * (in a host's content-visibility: auto box far out of view) is shown at once: it costs nothing until it comes
   * near. Rebuilds swap the whole view, as the old one stays shown until then.
   */
  async unveil(generation) {
    const line = this._stand && !this._built ? this._stand.querySelector(':scope > .al-loading') : null;
    const parts = Array.from(this.frame.children);
    if (!line || parts.length < 2) {
      this.attachFrame();
      return;
    }
    parts.forEach((part) => part.classList.add('al-unlaid'));
    this.frame.classList.add('al-staging');
    this.frame.prepend(line);
    this.attachFrame();
    try {
      // Out of view, whether the browser draws the frame at all is known after its next rendering.
      if (!schedule.inView(this)) {
        await new Promise((resolve) => schedule.afterRendering(this, resolve));
        if (this.overtaken(generation)) throw STALE;
      }
      const drawn = () => typeof line.checkVisibility !== 'function' || line.checkVisibility({ contentVisibilityAuto: true });
      for (let i = 0; i < parts.length && drawn();) {
        const start = schedule.now();
        // Reading a part's size lays it out now, in this task, instead of in the next frame's.
        do parts[i++].classList.remove('al-unlaid');
        while (i < parts.length && parts[i - 1].getBoundingClientRect() && schedule.now() - start < REVEAL_BUDGET_MS);
        // The next part in a task of its own, straight after: the reader is waiting for this view.
        if (i < parts.length) await schedule.pause();
        if (this.overtaken(generation)) throw STALE;
      }
    } finally {
      if (generation === this._generation) {
        line.remove();
        parts.forEach((part) => part.classList.remove('al-unlaid'));
        this.frame.classList.remove('al-staging');
      }
    }
  }

  /**
   * The loading line, in a box of roughly the widget's final height so the page does not jump.
   * The heights for each width go in custom properties on the frame and a container query in
   * the stylesheet picks one, so nothing reads the layout while the page is still being parsed.
   */
  showLoading() {
    estimateHeights(this.localName, reserveConfig((name) => this.getAttribute(name))).forEach((height, i) => {
      // The frame's padding and border (2 x 15px + 2 x 1px at the default size) are outside its content.
      this.frame.style.setProperty(`--al-h${i}`, `${Math.max(0, height - 32)}px`);
    });
    this.frame.style.minHeight = '';
    this.frame.replaceChildren(h('p', { class: 'al-loading', part: 'message' }, 'Loading the attention engine\u2026'));
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
    const blocked = err && (err.code === 'wasm-blocked' || err.code === 'wasm-unsupported');
    const raw = err && err.message ? err.message : String(err);
    const message = blocked ? hostPage.wasmBlocked(err) : raw.startsWith(`<${this.localName}>`) ? raw : `<${this.localName}>: ${raw}`;
    this._status = 'error';
    this._built = false;
    this.frame.style.minHeight = '';
    this.frame.replaceChildren(h('div', { class: 'al-error', role: 'alert', part: 'message' },
      blocked ? null : h('strong', {}, 'This widget could not be shown. '),
      h('span', { class: 'al-error-message' }, message)));
    if (blocked) hostPage.logOnce('engine', err);
    else hostPage.logOnce(message);
    this.emit('al-error', { message });
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
  }
}

module.exports = { LabElement, urlState };
