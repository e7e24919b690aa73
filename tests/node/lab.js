'use strict';
// Loads the engine once for all node test files (each file is its own process).
const { loadAttentionLab } = require('../../index.js');
module.exports = { loadAttentionLab };
