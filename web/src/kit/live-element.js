'use strict';
// The base of the widgets that train while the reader watches (<attention-trainer>,
// <position-race>): reports arrive many times a second and the view is redrawn at most every
// DRAW_MS; a run stops while the page's tab is hidden (no engine time for a view nobody sees)
// and goes on when the tab is shown again, unless the reader paused it first.
// A subclass keeps `running`, implements draw(), pauseRun() (the pause the tab's hiding asks
// for) and resumeRun(); `pausedByHidden` says which pause is current and is cleared by a resume.

const { LabElement } = require('./base.js');

const DRAW_MS = 250;

class LiveElement extends LabElement {
  /** draw() after the current reports, at most once every DRAW_MS (in a task after the page's next rendering). */
  scheduleDraw() {
    if (this.drawTimer) return;
    const wait = Math.max(0, DRAW_MS - (performance.now() - (this.lastDraw || 0)));
    this.drawTimer = setTimeout(() => {
      this.drawTimer = null;
      this.soon(() => this.drawLive());
    }, wait);
  }

  /** draw(), remembering when, so the next scheduled draw waits its turn. */
  drawLive() {
    this.lastDraw = performance.now();
    this.draw();
  }

  connectedCallback() {
    super.connectedCallback();
    this.ownerDocument.addEventListener('visibilitychange', () => this.guard(() => {
      if (this.ownerDocument.hidden && this.running) {
        this.pausedByHidden = true;
        this.pauseRun();
      } else if (!this.ownerDocument.hidden && this.pausedByHidden) {
        this.pausedByHidden = false;
        this.resumeRun();
      }
    }), { signal: this._listeners.signal });
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.drawTimer);
    this.drawTimer = null;
    this.pausedByHidden = false;
  }
}

module.exports = { LiveElement, DRAW_MS };
