'use strict';
// Copy buttons for the code listings (<pre class="listing">) and the reference's snippets
// (<pre class="snippet">), and the lessons menu of a narrow
// screen. A classic external script so
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

  // On a narrow screen the lessons are a menu (a <details>, site.css): Escape closes it and
  // gives the focus back to its button, and a tap or focus outside it closes it.
  function lessonsMenu() {
    var menu = document.querySelector('.site-menu');
    if (!menu) return;
    var summary = menu.querySelector('summary');
    menu.addEventListener('keydown', function (e) {
      if (e.key !== 'Escape' || !menu.open) return;
      menu.open = false;
      summary.focus();
    });
    function outside(e) {
      if (menu.open && !menu.contains(e.target)) menu.open = false;
    }
    document.addEventListener('click', outside);
    document.addEventListener('focusin', outside);
  }

  function init() {
    var listings = document.querySelectorAll('pre.listing, pre.snippet');
    for (var i = 0; i < listings.length; i++) addButton(listings[i]);
    lessonsMenu();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
