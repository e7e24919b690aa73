'use strict';
// Helpers shared by the benchmarks (scripts/bench.js, scripts/bench-api.js).

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** `size` seeded numbers in [-1, 1) (a small LCG: the same inputs in every run). */
function randomData(size, seed) {
  let s = seed >>> 0;
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2147483648 - 1;
  }
  return out;
}

module.exports = { median, randomData };
