'use strict';
// The iframe embed page: creates the one widget its address asks for, and reports the page's
// content height to the parent window whenever it changes, so the parent can size the iframe.
// <model-attention model> gets the shipped model's script first (attention-lab-model.js, beside
// this page); any widget takes its data from the parent page too: a message
// { type: 'attention-lab:data', data } sets the widget's `data` property.

const { parseEmbedRequest, HEIGHT_MESSAGE, DATA_MESSAGE } = require('../src/ui/embed-request.js');

// This file's own address (a deferred script: document.currentScript is set while it runs).
const HERE = document.currentScript ? document.currentScript.src : window.location.href;

function message(root, text) {
  const p = document.createElement('p');
  p.className = 'embed-message';
  p.setAttribute('role', 'alert');
  p.textContent = text;
  root.replaceChildren(p);
}

/**
 * Loads the shipped model's script from beside this page. Under the page's Trusted Types
 * policy a script's address must come from a named policy: this one allows that one file only.
 */
function loadModelScript() {
  const url = new URL('attention-lab-model.js', HERE).href;
  let src = url;
  if (window.trustedTypes && window.trustedTypes.createPolicy) {
    const policy = window.trustedTypes.createPolicy('attention-lab-embed', {
      createScriptURL: (value) => {
        if (value !== url) throw new TypeError(`embed.html loads only ${url}`);
        return value;
      },
    });
    src = policy.createScriptURL(url);
  }
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.onload = resolve;
    script.onerror = () => reject(new Error(`embed.html: attention-lab-model.js could not be loaded from ${url}; host it beside embed.html (npm run build writes it to dist/)`));
    script.src = src;
    document.head.append(script);
  });
}

async function show(root) {
  const request = parseEmbedRequest(window.location.search);
  if (request.error) {
    message(root, request.error);
    return null;
  }
  if (request.tag === 'model-attention' && request.attributes.some(([name]) => name === 'model')) {
    try {
      await loadModelScript();
    } catch (err) {
      message(root, err.message);
      return null;
    }
  }
  const widget = document.createElement(request.tag);
  for (const [name, value] of request.attributes) widget.setAttribute(name, value);
  root.replaceChildren(widget);
  return widget;
}

function reportHeight(root) {
  if (window.parent === window || typeof ResizeObserver === 'undefined') return;
  let last = -1;
  const send = () => {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    // '*': the embed cannot know its parent's origin (and in a sandbox its own is opaque);
    // the message carries only a height.
    window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
  };
  new ResizeObserver(send).observe(root);
}

/** Data sent by the parent page (only the parent: the frame's own window.parent) becomes the widget's data. */
function takeData(shown) {
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || window.parent === window) return;
    const m = event.data;
    if (!m || typeof m !== 'object' || m.type !== DATA_MESSAGE) return;
    shown.then((widget) => { if (widget) widget.data = m.data; });
  });
}

const root = document.getElementById('embed');
const shown = show(root);
takeData(shown);
reportHeight(root);
