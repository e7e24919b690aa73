'use strict';
// One rule for every number typed into a widget's box (issue 23): the value, or a sentence that
// says what is wrong with what was typed and what to type, whatever was typed. DOM-free.
const test = require('node:test');
const assert = require('node:assert/strict');
const { readField } = require('../../web/src/ui/fields.js');

test('a typed size, seed or query: the value, or what is wrong and what to type, for every hostile text', () => {
  const seed = { label: 'seed', min: 0, max: 1e9, whole: true };
  assert.deepEqual(readField(' 2017 ', seed), { value: 2017 });
  assert.deepEqual(readField('-0', seed), { value: 0 });
  const cases = [
    ['99999999999999999999', 'seed: "99999999999999999999" is above 1.0e9; type a whole number from 0 to 1.0e9.'],
    ['-5', 'seed: "-5" is below 0; type a whole number from 0 to 1.0e9.'],
    ['2.5', 'seed: "2.5" is not a whole number; type a whole number from 0 to 1.0e9.'],
    ['', 'seed is empty; type a whole number from 0 to 1.0e9.'],
    ['abc', 'seed: "abc" is not a number; type a whole number from 0 to 1.0e9.'],
    ['Infinity', 'seed: "Infinity" is not a number; type a whole number from 0 to 1.0e9.'],
    ['1e400', 'seed: "1e400" is far too large; type a whole number from 0 to 1.0e9.'],
    ['9'.repeat(5000), 'seed: "99999999999999999999\u2026" is far too large; type a whole number from 0 to 1.0e9.'],
  ];
  for (const [text, message] of cases) assert.deepEqual(readField(text, seed), { error: message }, text);
  assert.deepEqual(readField('', seed, true), { error: 'seed: what you typed is not a number; type a whole number from 0 to 1.0e9.' });
  const q = { label: 'Query box 1', min: -3.4028234663852886e38, max: 3.4028234663852886e38 };
  assert.deepEqual(readField('1e30', q), { value: 1e30 });
  assert.deepEqual(readField('\u22125', q), { value: -5 });
  assert.match(readField('1e39', q).error, /^Query box 1: "1e39" is far too large; type a number from -3\.4e38 to 3\.4e38\.$/);
});
