'use strict';
// Widget state in the URL hash, so a teacher's link reopens the same view:
//   #stepper.token=1&stepper.step=3&heatmap.causal=1
// Each widget owns the keys under its own prefix; others are left untouched.

function parse(hash) {
  const out = new Map();
  const body = String(hash || '').replace(/^#/, '');
  if (!body) return out;
  for (const part of body.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
    out.set(key, value);
  }
  return out;
}

function format(map) {
  const parts = [];
  for (const [key, value] of map) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  return parts.length ? `#${parts.join('&')}` : '';
}

/** The state stored under `prefix` as { key: string }. */
function read(hash, prefix) {
  const out = {};
  for (const [key, value] of parse(hash)) {
    if (key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] = value;
  }
  return out;
}

/** A new hash with `state` (values stringified; booleans as 1/0) under `prefix`. */
function write(hash, prefix, state) {
  const map = parse(hash);
  for (const key of [...map.keys()]) if (key.startsWith(`${prefix}.`)) map.delete(key);
  for (const [key, value] of Object.entries(state)) {
    if (value === undefined || value === null) continue;
    map.set(`${prefix}.${key}`, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  return format(map);
}

/** Reads helpers that fall back when a value is missing or malformed. */
function int(value, fallback, min, max) {
  const n = Number(value);
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

function bool(value, fallback) {
  return value === '1' ? true : value === '0' ? false : fallback;
}

function choice(value, options, fallback) {
  return options.includes(value) ? value : fallback;
}

module.exports = { parse, format, read, write, int, bool, choice };
