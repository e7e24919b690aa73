'use strict';
// What the iframe embed page (embed.html) is asked to show: ?widget=<element>&<attribute>=<value>...
// Only element names and attributes that the widget manifest declares are accepted; every value
// stays a string for setAttribute, so nothing from the URL can become markup. DOM-free.

const { WIDGETS, attributesOf } = require('../kit/manifest.js');

const HEIGHT_MESSAGE = 'attention-lab:height';
// A message from the parent page whose `data` becomes the widget's data (embed.js).
const DATA_MESSAGE = 'attention-lab:data';

// Names echoed in messages are cut short: a URL can be long and hostile.
const shown = (text) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}\u2026` : text);

/**
 * @param search a location.search string such as "?widget=attention-heatmap&tokens=the+cat+sat"
 * @returns {{ tag: string, attributes: [string, string][] } | { error: string }}
 *   The widget's URL state is off unless the URL sets url-state: the query string is the embed's own.
 */
function parseEmbedRequest(search) {
  const params = new URLSearchParams(search);
  const names = Object.keys(WIDGETS);
  const widgets = params.getAll('widget');
  if (widgets.length !== 1) {
    return { error: `embed.html: the address needs exactly one ?widget=<name>; expected one of ${names.join(', ')}` };
  }
  const tag = widgets[0];
  if (!Object.prototype.hasOwnProperty.call(WIDGETS, tag)) {
    return { error: `embed.html: there is no widget called ${shown(tag)}; expected one of ${names.join(', ')}` };
  }
  const allowed = attributesOf(tag).map((a) => a.name);
  const attributes = [];
  for (const [name, value] of params) {
    if (name === 'widget') continue;
    if (!allowed.includes(name)) {
      return { error: `embed.html: <${tag}> has no attribute ${shown(name)}; expected one of ${allowed.join(', ')}` };
    }
    if (attributes.some(([seen]) => seen === name)) {
      return { error: `embed.html: the attribute ${shown(name)} is given twice; keep one` };
    }
    attributes.push([name, value]);
  }
  if (!attributes.some(([name]) => name === 'url-state')) attributes.push(['url-state', 'off']);
  return { tag, attributes };
}

module.exports = { parseEmbedRequest, HEIGHT_MESSAGE, DATA_MESSAGE };
