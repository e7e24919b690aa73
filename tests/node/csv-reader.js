'use strict';
// An RFC 4180 reader written for the export tests (node and browser): quoted fields, doubled
// quotes, CRLF. Independent of web/src/ui/export.js, which writes the files.

const assert = require('node:assert/strict');

function parseCSV(text, sep = ',') {
  const rows = [];
  let row = [], cell = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === sep) { row.push(cell); cell = ''; } else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; } else cell += c;
  }
  assert.equal(row.length + cell.length, 0, 'the text ends with CRLF');
  return rows;
}

module.exports = { parseCSV };
