'use strict';
// The iframe embed page: creates the one widget its address asks for, and reports the page's
// content height to the parent window whenever it changes, so the parent can size the iframe.

const { parseEmbedRequest, HEIGHT_MESSAGE } = require('../src/ui/embed-request.js');

function show(root) {
  const request = parseEmbedRequest(window.location.search);
  if (request.error) {
    const message = document.createElement('p');
    message.className = 'embed-message';
    message.setAttribute('role', 'alert');
    message.textContent = request.error;
    root.replaceChildren(message);
    return;
  }
  const widget = document.createElement(request.tag);
  for (const [name, value] of request.attributes) widget.setAttribute(name, value);
  root.replaceChildren(widget);
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

const root = document.getElementById('embed');
show(root);
reportHeight(root);
