'use strict';
// Byte counts and durations for display, in binary units (KiB = 1024 bytes, as memory is
// sized). Display only: the numbers themselves come from the engine or a measurement.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** Three significant digits without trailing zeros: 1.5, 12.3, 512. */
function short(x) {
  const s = x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** 1536 -> "1.5 KiB"; 512 -> "512 B"; a non-number or negative count is an Error naming it. */
function formatBytes(bytes) {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) {
    throw new Error(`formatBytes: bytes is ${String(bytes)}; expected a number of bytes (0 or more)`);
  }
  let k = 0;
  let x = bytes;
  // Rounding can carry past 1023.5 ("1024 KiB"): step up a unit when it would.
  while (k < UNITS.length - 1 && Number(short(x)) >= 1024) {
    x /= 1024;
    k += 1;
  }
  return `${k === 0 ? String(Math.round(x)) : short(x)} ${UNITS[k]}`;
}

/** A duration in milliseconds: "0.042 ms", "3.1 ms", "250 ms", "1.25 s". */
function formatMs(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new Error(`formatMs: ms is ${String(ms)}; expected a duration in milliseconds (0 or more)`);
  }
  if (ms >= 1000) return `${short(ms / 1000)} s`;
  if (ms >= 1 || ms === 0) return `${short(ms)} ms`;
  return `${Number(ms.toPrecision(2))} ms`;
}

module.exports = { formatBytes, formatMs, UNITS };
