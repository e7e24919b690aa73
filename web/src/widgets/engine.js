'use strict';
// The one engine every widget on a page shares.

let loader = null;

function setLoader(fn) {
  loader = fn;
}

function getLab() {
  if (!loader) return Promise.reject(new Error('attention-lab: the engine loader is not set'));
  return loader();
}

module.exports = { setLoader, getLab };
