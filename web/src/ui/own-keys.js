'use strict';
// Which key presses belong to a widget's own controls. A page's shortcuts (slide decks on the
// arrows and space, docs search on '/' or 's') listen on the document and skip form fields by
// looking at the event's target or document.activeElement; from inside a shadow root both are
// the widget's host element, so the page cannot tell the reader was typing into the widget.
// The widget stops exactly these keys at its shadow root; every other key (Tab, Escape,
// Ctrl+K, keys pressed on plain text) still reaches the page.

const TEXT_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number']);
const BUTTON_TYPES = new Set(['button', 'submit', 'reset', 'image', 'color', 'file']);
const BUTTON_ROLES = new Set(['button', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'option', 'switch', 'link']);
const ARROWS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'];
const CARET = new Set(['ArrowLeft', 'ArrowRight', 'Home', 'End', 'Backspace', 'Delete', 'Enter']);
const LINES = new Set([...CARET, 'ArrowUp', 'ArrowDown', 'PageUp', 'PageDown']);
const RANGE = new Set([...ARROWS, 'Home', 'End', 'PageUp', 'PageDown']);
const LIST = new Set([...RANGE, ' ', 'Enter']);
const PRESS = new Set([' ', 'Enter']);

/** One character typed (a letter, digit, space or symbol, also outside the BMP), not a named key. */
const printable = (key) => typeof key === 'string' && Array.from(key).length === 1;

/**
 * The kind of control a focused element is, for ownKey.
 * @param control { tag, type, role, editable }: the element's lower-case tag name, its type
 *   attribute (inputs), its role attribute, and whether it is contenteditable
 * @returns 'text' | 'lines' | 'number' | 'range' | 'check' | 'radio' | 'list' | 'button' | 'link' | null
 */
function controlKind({ tag, type, role, editable }) {
  if (editable || tag === 'textarea') return 'lines';
  if (tag === 'select') return 'list';
  if (tag === 'input') {
    const t = String(type || '').toLowerCase();
    if (t === 'number') return 'number';
    if (TEXT_TYPES.has(t)) return 'text';
    if (t === 'range') return 'range';
    if (t === 'checkbox') return 'check';
    if (t === 'radio') return 'radio';
    if (BUTTON_TYPES.has(t)) return 'button';
    return 'text';  // date, time and the like take typed digits and the arrows
  }
  if (tag === 'button' || tag === 'summary') return 'button';
  if (tag === 'a') return 'link';
  if (role === 'slider' || role === 'spinbutton') return 'range';
  if (BUTTON_ROLES.has(role)) return role === 'link' ? 'link' : 'button';
  return null;
}

/**
 * Whether the control described by `control` (see controlKind) uses the key press `e` itself:
 * typing and caret keys in text fields, the arrows on a slider or a list, Space on a check
 * box, Space and Enter on a button. Shortcuts with Ctrl or Cmd on a letter never are (Ctrl+K
 * opens the page's search from anywhere); AltGr characters (Ctrl+Alt) are typing.
 * @param e { key, ctrlKey, metaKey, altKey, isComposing }
 */
function ownKey(control, e) {
  const kind = controlKind(control);
  if (!kind) return false;
  const key = e.key;
  const text = kind === 'text' || kind === 'number' || kind === 'lines';
  if (text) {
    if (e.isComposing || key === 'Process') return true;  // an input method is composing
    if (printable(key)) return !e.metaKey && !(e.ctrlKey && !e.altKey);
    if (kind === 'lines') return LINES.has(key);
    if (kind === 'number' && (key === 'ArrowUp' || key === 'ArrowDown')) return true;
    return CARET.has(key);
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  switch (kind) {
    case 'range': return RANGE.has(key);
    case 'check': return key === ' ';
    case 'radio': return key === ' ' || ARROWS.includes(key);
    case 'list': return LIST.has(key) || printable(key);
    case 'button': return PRESS.has(key);
    case 'link': return key === 'Enter';
    default: return false;
  }
}

module.exports = { ownKey, controlKind };
