// Node.js entry (CommonJS). The API is asynchronous anyway, so the ESM entry is loaded lazily.
'use strict';
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const esm = () => import(pathToFileURL(path.join(__dirname, 'node.mjs')).href);

async function init(options) {
  return (await esm()).init(options);
}

module.exports = { init, default: init, loadEsm: esm };
