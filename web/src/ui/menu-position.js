'use strict';
// Where a pop-up menu goes beside the button that opened it, in viewport coordinates (the
// menu sits in the top layer, position: fixed, so no ancestor's overflow or containment clips
// it). Below the button, right edges aligned; above it when there is no room below and more
// room above; always inside the viewport as far as the menu's size allows.

const GAP = 4;     // between the button and the menu
const EDGE = 4;    // least distance from the viewport's edges

/**
 * @param button { left, top, right, bottom } of the button (getBoundingClientRect)
 * @param menu { width, height } of the open menu
 * @param viewport { width, height } of the layout viewport
 * @returns { left, top } of the menu in CSS pixels
 */
function menuPosition(button, menu, viewport) {
  for (const [name, value] of [['button', button], ['menu', menu], ['viewport', viewport]]) {
    if (!value || typeof value !== 'object') throw new TypeError(`menuPosition: ${name} must be an object with its size, got ${value}`);
  }
  const below = viewport.height - button.bottom - GAP - EDGE;
  const above = button.top - GAP - EDGE;
  const up = menu.height > below && above > below;
  const top = up ? button.top - GAP - menu.height : button.bottom + GAP;
  const left = button.right - menu.width;
  const clamp = (x, size, room) => Math.max(EDGE, Math.min(x, room - size - EDGE));
  return { left: Math.round(clamp(left, menu.width, viewport.width)), top: Math.round(up ? Math.max(EDGE, top) : clamp(top, menu.height, viewport.height)) };
}

module.exports = { menuPosition };
