'use strict';
// A tiny element builder: h('button', { class: 'x', onclick }, 'text', child).

// Code is the same in every language: page translators (some walk open shadow roots) leave
// it alone. Formulas get the same mark in mathml().
const UNTRANSLATED = new Set(['pre', 'code']);

function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (UNTRANSLATED.has(tag)) el.setAttribute('translate', 'no');
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(el.style, value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const MATHML = 'http://www.w3.org/1998/Math/MathML';

/** Builds MathML from a build-time node tree [tag, attributes?, ...children]: no markup parsing. */
function mathml(node) {
  if (typeof node === 'string') return document.createTextNode(node);
  const el = document.createElementNS(MATHML, node[0]);
  if (node[0] === 'math') el.setAttribute('translate', 'no');
  for (const child of node.slice(1)) {
    if (typeof child === 'string' || Array.isArray(child)) el.append(mathml(child));
    else for (const [key, value] of Object.entries(child)) el.setAttribute(key, value);
  }
  return el;
}

/** A horizontally scrolling box that keyboard users can scroll too (it takes focus). */
function scrollBox(label, ...children) {
  // Focusable, so that a keyboard can scroll it, and named; a group, not a region: a lesson has
  // many such boxes, and landmarks named "Numbers" five times over would crowd the page's own.
  return h('div', { class: 'al-scroll', tabindex: '0', role: 'group', 'aria-label': label }, children);
}

/**
 * Sets el's text only when it differs from what el already says: a live region rewritten with
 * the same words is announced again, so a redraw that changes nothing must not touch it.
 */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

const HEADINGS = 'h1,h2,h3,h4,h5,h6';

/**
 * Fits the headings inside a widget (root) into the outline of the page around its host: the
 * widget's highest heading goes one level below the last heading before the host (the level
 * below a page title when none comes before), and the others keep their distance from it, so
 * a screen reader's list of headings has no gap or jump wherever an author puts the widget.
 */
function fitHeadings(root, host) {
  const own = Array.from(root.querySelectorAll(HEADINGS));
  if (!own.length) return;
  let above = 1;
  for (const el of host.getRootNode().querySelectorAll(`${HEADINGS},[role="heading"]`)) {
    if (!(host.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING)) break;
    above = Number(el.getAttribute('aria-level')) || Number(el.localName[1]) || 2;
  }
  const top = Math.min(...own.map((el) => Number(el.localName[1])));
  for (const el of own) el.setAttribute('aria-level', String(Math.min(6, above + 1 + Number(el.localName[1]) - top)));
}

let counter = 0;
/** A page-unique id for aria-labelledby and label[for]. */
function uid(prefix = 'al') {
  counter += 1;
  return `${prefix}-${counter}`;
}

module.exports = { h, append, mathml, uid, scrollBox, setText, fitHeadings };
