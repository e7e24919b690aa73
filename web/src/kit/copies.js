'use strict';
// Several copies of attention-lab on one page: the classic script included twice, an older
// release left in a theme beside a newer one, the script beside the elements module. The page
// keeps one API and one engine, the first copy's; a later copy adds only the elements the
// first lacks, and says so when the two differ.

const { logOnce } = require('./host-page.js');

// The package's version, put in by the bundle step (scripts/build.js); 'dev' in other builds.
// eslint-disable-next-line no-undef
const VERSION = typeof ATTENTION_LAB_VERSION === 'string' ? ATTENTION_LAB_VERSION : 'dev';

/** The console line for a later copy of another version, or one that had to add elements. */
function copiesMessage(mine, theirs, added) {
  const first = theirs ? `attention-lab ${theirs}` : 'an older attention-lab (one without a version number)';
  const lacks = added.length
    ? ` It has no ${added.map((t) => `<${t}>`).join(', ')}, so this copy defines ${added.length === 1 ? 'that element' : 'those elements'} with an engine of its own.`
    : '';
  return `attention-lab ${mine}: ${first} was loaded first on this page, and its widgets are the ones used.${lacks} Include one copy of attention-lab, the newest.`;
}

/**
 * Takes this copy's place on the page. The first copy publishes `api` ({ loadAttentionLab,
 * version }) as globalThis.AttentionLab and, where custom elements exist (a page, not a
 * worker), defines every element. A later copy keeps the first one's API and elements and
 * defines only those the first lacks, with its own engine.
 * @returns the API in force on the page
 */
function takePlace(loadAttentionLab) {
  const api = { loadAttentionLab, version: VERSION };
  // window.AttentionLab may also be the page's own element or frame of that id or name (named
  // access on window): only a plain object, the page's or an earlier copy's, is ours to read and
  // extend. A frame of another origin would throw on the first property read.
  const existing = globalThis.AttentionLab;
  const plain = existing !== null && typeof existing === 'object' && Object.getPrototypeOf(existing) === Object.prototype;
  const earlier = plain && typeof existing.loadAttentionLab === 'function' ? existing : null;
  const elements = typeof customElements !== 'undefined';
  // A worker that loaded the classic script by its address waits to be told what to run.
  if (!elements && typeof WorkerGlobalScope !== 'undefined' && typeof attentionLabScript === 'function') require('./engine-worker.js').serveWorker();  // eslint-disable-line no-undef
  if (!earlier) {
    globalThis.AttentionLab = Object.assign(plain ? existing : {}, api);
    if (elements) require('./index.js').defineWidgets(loadAttentionLab);
    return api;
  }
  const theirs = typeof earlier.version === 'string' ? earlier.version : null;
  const added = elements ? require('./index.js').defineWidgets(loadAttentionLab, { onlyMissing: true }) : [];
  if (added.length || theirs !== VERSION) logOnce(copiesMessage(VERSION, theirs, added));
  return { loadAttentionLab: earlier.loadAttentionLab, version: theirs };
}

module.exports = { takePlace, copiesMessage, VERSION };
