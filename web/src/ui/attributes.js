'use strict';
// Reads widget attributes by their declared type (web/src/kit/manifest.js). A value
// that does not fit is an error that names the widget, the attribute and what was expected.
// DOM-free: callers pass the raw attribute strings.

const { splitTokens } = require('./author-data.js');

const MAX_ATTRIBUTE_LENGTH = 10000;

function fail(tag, name, raw, expected) {
  const shown = raw.length > 40 ? `${JSON.stringify(raw.slice(0, 40))}\u2026` : JSON.stringify(raw);
  return new Error(`<${tag}>: ${name}=${shown} is not valid; expected ${expected}`);
}

/**
 * Parses one attribute.
 * @param tag element name, for messages
 * @param spec the manifest entry { name, type, values, min, max, default }
 * @param raw the attribute value, or null when the attribute is absent
 * @returns the parsed value, or undefined when absent (callers apply their own default)
 */
function parseAttribute(tag, spec, raw) {
  if (raw === null || raw === undefined) return undefined;
  const text = String(raw);
  if (text.length > MAX_ATTRIBUTE_LENGTH) {
    throw new Error(`<${tag}>: ${spec.name} is ${text.length} characters long; expected at most ${MAX_ATTRIBUTE_LENGTH}`);
  }
  switch (spec.type) {
    case 'boolean': {
      const t = text.trim().toLowerCase();
      if (t === 'false' || t === '0' || t === 'off') return false;
      if (t === '' || t === 'true' || t === '1' || t === 'on' || t === spec.name) return true;
      throw fail(tag, spec.name, text, 'true or false (or the bare attribute)');
    }
    case 'integer':
    case 'number': {
      const t = text.trim();
      const n = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : NaN;
      const lo = spec.min === undefined ? -Infinity : spec.min;
      const hi = spec.max === undefined ? Infinity : spec.max;
      if (!Number.isFinite(n) || (spec.type === 'integer' && !Number.isInteger(n)) || n < lo || n > hi) {
        throw fail(tag, spec.name, text, `a ${spec.type === 'integer' ? 'whole number' : 'number'} from ${lo} to ${hi}`);
      }
      return n;
    }
    case 'enum': {
      const t = text.trim();
      if (!spec.values.includes(t)) throw fail(tag, spec.name, text, `one of ${spec.values.join(', ')}`);
      return t;
    }
    case 'tokens':
      return splitTokens(text);
    default:
      return text;
  }
}

/** The attribute string that a property value reflects to (null removes the attribute). */
function formatAttribute(spec, value) {
  if (value === undefined || value === null) return null;
  switch (spec.type) {
    case 'boolean': return value ? '' : 'false';
    case 'tokens': return Array.isArray(value) ? value.join(' ') : String(value);
    default: return String(value);
  }
}

module.exports = { parseAttribute, formatAttribute, MAX_ATTRIBUTE_LENGTH };
