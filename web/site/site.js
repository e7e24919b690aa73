'use strict';
// Copy buttons for the code listings (<pre class="listing">), and the lessons strip of a narrow
// screen opened at the current page. A classic external script so
// that it runs from file:// and under a Content-Security-Policy without 'unsafe-inline'.
// Where the Clipboard API is missing or refused, the listing's text is selected instead so
// that the reader can copy it with the keyboard.
(function () {
  function selectText(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function addButton(pre) {
    var code = pre.querySelector('code') || pre;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    var label = pre.getAttribute('aria-label');
    if (label) button.setAttribute('aria-label', 'Copy: ' + label);
    var status = document.createElement('span');
    status.className = 'copy-status';
    status.setAttribute('role', 'status');
    var bar = document.createElement('div');
    bar.className = 'listing-bar';
    bar.appendChild(button);
    bar.appendChild(status);
    pre.parentNode.insertBefore(bar, pre);

    function fallback() {
      selectText(code);
      status.textContent = 'Selected: press Ctrl+C (\u2318C on a Mac) to copy.';
    }
    button.addEventListener('click', function () {
      var text = code.textContent;
      if (!navigator.clipboard || typeof navigator.clipboard.writeText !== 'function') {
        fallback();
        return;
      }
      navigator.clipboard.writeText(text).then(function () {
        status.textContent = 'Copied.';
      }, fallback);
    });
  }

  // On a narrow screen the lessons are a strip that scrolls sideways (site.css): it opens
  // with the current page's link in its middle rather than at its start, and a link that takes
  // focus comes fully into view (Chromium leaves one that shows a few pixels where it is).
  function centre(nav, a) {
    var box = nav.getBoundingClientRect(), link = a.getBoundingClientRect();
    if (nav.scrollWidth <= nav.clientWidth || (link.left >= box.left && link.right <= box.right)) return;
    nav.scrollLeft += link.left - box.left - (box.width - link.width) / 2;
  }

  function showCurrentPage() {
    var nav = document.querySelector('.site-header nav');
    var current = nav && nav.querySelector('[aria-current="page"]');
    if (!current) return;
    centre(nav, current);
    nav.addEventListener('focusin', function (e) { centre(nav, e.target); });
  }

  function init() {
    var listings = document.querySelectorAll('pre.listing');
    for (var i = 0; i < listings.length; i++) addButton(listings[i]);
    showCurrentPage();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
