'use strict';
// loadAttentionLab for any environment, given the engine factory. One engine per factory:
// every caller (several widgets on a page) shares it.

const { createLab } = require('./lab.js');

function makeLoader(createCore) {
  let pending = null;
  return function loadAttentionLab() {
    if (!pending) {
      pending = createCore().then(createLab);
      pending.catch(() => { pending = null; });
    }
    return pending;
  };
}

module.exports = { makeLoader, createLab };
