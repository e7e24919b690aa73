'use strict';
// What a widget shares with the page around it, below LabElement (base.js): the page's light or
// dark theme around it (the `theme` attribute, else the host's colours, which host-page.js
// watches) and its state in the page's URL (only with an id of its own, and neither the page
// nor the widget having turned it off).

const urlState = require('../ui/url-state.js');
const hostPage = require('./host-page.js');
const colors = require('../ui/colors.js');

class HostedElement extends HTMLElement {
  /** The page may have repainted behind the widget (host-page.js watches its theme switches): follow it. */
  hostChanged() {
    if (this._hostTheme === undefined) return;  // not read yet: the first drawing reads it
    const theme = hostPage.hostTheme(this);
    if (theme === this._hostTheme) return;
    this._hostTheme = theme;
    if (this._built) this.applyTheme(theme);
  }

  /** @param hostTheme the host page's theme around the widget when already known */
  applyTheme(hostTheme) {
    let theme = 'auto';
    try {
      theme = this.attr('theme', 'auto');
    } catch (_) { /* an unknown theme value falls back to auto */ }
    if (theme === 'auto' && this.isConnected) theme = hostTheme || hostPage.hostTheme(this);
    this.frame.classList.toggle('al-dark', theme === 'dark');
    this.frame.classList.toggle('al-light', theme === 'light');
  }

  /**
   * Whether the widget is drawn on a dark background. Heatmap cells coloured by a diverging
   * scale are inline styles, which cannot follow light-dark() as the stylesheet does, so this
   * reads the colour the frame resolved to (the theme attribute, the page's colour scheme or
   * the author's --al-bg).
   */
  darkBackground() {
    const view = this.ownerDocument.defaultView;
    const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(view.getComputedStyle(this.frame).backgroundColor);
    if (m && (m[4] === undefined || Number(m[4]) >= 0.5)) return colors.luminance(m.slice(1, 4).map(Number)) < 0.2;
    return this.frame.classList.contains('al-dark');
  }

  /**
   * Whether this widget reads and writes the URL: it needs an id that no other element on the
   * page has, and neither the page (<meta name="attention-lab" content="url-state=off">) nor
   * the widget (url-state="off") turned it off.
   */
  urlStateAllowed() {
    if (!this.id || this.getAttribute('url-state') === 'off' || hostPage.pageUrlStateOff(this.ownerDocument)) return false;
    if (hostPage.duplicateId(this)) {
      hostPage.logOnce(`attention-lab: more than one element has id="${this.id}", so <${this.localName} id="${this.id}"> does not keep its state in the URL; give each widget its own id`);
      return false;
    }
    return true;
  }

  readState() {
    if (!this.urlStateAllowed()) return {};
    try {
      return urlState.read(window.location.search, window.location.hash, this.id);
    } catch (_) {
      return {};
    }
  }

  /**
   * Call after the reader (or a script) changed the view: dispatches al-change and writes the
   * URL state (`state`, or the widget's urlState()) at most every 200 ms (browsers throttle
   * history calls).
   */
  saveState(state) {
    if (this._status !== 'ready') return;
    this.emit('al-change', { state: this.state });
    if (!this.urlStateAllowed()) return;
    this._pendingState = state || (this.linkState ? this.linkState() : null);
    if (this._saveTimer) return;
    this._saveTimer = setTimeout(() => this.flushState(), 200);
  }

  flushState() {
    clearTimeout(this._saveTimer);
    this._saveTimer = null;
    const state = this._pendingState;
    this._pendingState = null;
    if (state && this.urlStateAllowed()) hostPage.writeUrl(this.id, state);
  }
}

module.exports = { HostedElement, urlState };
