'use strict';
// Widget state in the page URL, so a teacher's link reopens the same view. Written to the
// query string as `?<id>.<key>=<value>` (never to the fragment, which belongs to the page's
// own anchors). Links in the older fragment form (`#<id>.<key>=<value>`) are still read.
// Every parser here tolerates any input: a malformed URL is ignored, never an error.

function decode(text) {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch (_) {
    return null;
  }
}

/** key -> value pairs of a query string or fragment ('?a=1&b=2', '#a=1'); malformed parts are skipped. */
function parse(part) {
  const out = new Map();
  const body = String(part || '').replace(/^[?#]/, '');
  if (!body || body.length > 100000) return out;
  for (const piece of body.split('&')) {
    if (!piece) continue;
    const eq = piece.indexOf('=');
    const key = decode(eq < 0 ? piece : piece.slice(0, eq));
    const value = decode(eq < 0 ? '' : piece.slice(eq + 1));
    if (key === null || value === null) continue;
    out.set(key, value);
  }
  return out;
}

function pick(map, prefix) {
  const out = {};
  for (const [key, value] of map) {
    if (key.length > prefix.length + 1 && key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] = value;
  }
  return out;
}

/**
 * The state stored for widget `prefix`: the query string wins over the legacy fragment form.
 * @returns { key: string }
 */
function read(search, hash, prefix) {
  return { ...pick(parse(hash), prefix), ...pick(parse(search), prefix) };
}

const enc = (s) => encodeURIComponent(s).replace(/%20/g, '+');

/**
 * A new query string with `state` under `prefix`; every other parameter is kept byte for byte,
 * in order. Booleans are written 1/0; undefined and null values are left out.
 */
function write(search, prefix, state) {
  const body = String(search || '').replace(/^\?/, '');
  const kept = body ? body.split('&').filter((piece) => {
    if (!piece) return false;
    const eq = piece.indexOf('=');
    const key = decode(eq < 0 ? piece : piece.slice(0, eq));
    return !(key !== null && key.startsWith(`${prefix}.`));
  }) : [];
  for (const [key, value] of Object.entries(state)) {
    if (value === undefined || value === null) continue;
    kept.push(`${enc(`${prefix}.${key}`)}=${enc(typeof value === 'boolean' ? (value ? '1' : '0') : String(value))}`);
  }
  return kept.length ? `?${kept.join('&')}` : '';
}

/** Readers that fall back when a value is missing or malformed. */
function int(value, fallback, min, max) {
  if (typeof value !== 'string' || !/^-?\d{1,12}$/.test(value)) return fallback;
  const n = Number(value);
  return n >= min && n <= max ? n : fallback;
}

function bool(value, fallback) {
  return value === '1' ? true : value === '0' ? false : fallback;
}

function choice(value, options, fallback) {
  return options.includes(value) ? value : fallback;
}

module.exports = { parse, read, write, int, bool, choice };
