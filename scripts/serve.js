#!/usr/bin/env node
'use strict';
// npm start: serves dist/ (built by scripts/build.js) on http://127.0.0.1:8080 (PORT overrides).
const path = require('path');
const { startServer } = require('./server.js');

const port = Number(process.env.PORT || 8080);
startServer({ root: path.resolve(__dirname, '..', 'dist'), port, gzip: true }).then(({ url }) => {
  console.log(`attention-lab: serving the lesson site at ${url}  (Ctrl+C stops)`);
}, (err) => {
  console.error(`attention-lab: cannot listen on port ${port}: ${err.message}`);
  process.exit(1);
});
