'use strict';
// Export files for a heatmap or a chart, built from plain data (no DOM): CSV, TSV, JSON,
// an SVG document, and the drawing calls of a PNG on any CanvasRenderingContext2D-like
// object. SVG and PNG are drawn from one layout, so the two files match.
//
// A figure is plain data:
//   heatmap: { kind: 'heatmap', title, caption, settings, rowLabels, colLabels, values,
//              masked (rows of booleans, or null), showNumbers }
//   chart:   { kind: 'chart', title, caption, settings, xLabel, yLabel, xs, yMax,
//              series: [{ name, ys, cls, points }] }   (cls as in the widget stylesheet)

const colors = require('./colors.js');
const chart = require('./chart.js');
const { fixed } = require('./format.js');
const { anyMasked } = require('./heatmap-model.js');

// The widgets' light-theme colours: files are read outside the page, on paper or slides.
const THEME = { fg: '#1b1b1f', muted: '#55555f', bg: '#ffffff', line: '#c9c9d3', accent: '#1f5fbf', focus: '#c2410c', mask: 'rgb(154, 154, 166)' };
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';
const SERIES_STYLE = {
  'al-curve': { stroke: THEME.accent },
  'al-curve-2': { stroke: THEME.focus, dash: [5, 3] },
  'al-curve-3': { stroke: THEME.muted, dash: [2, 4] },
  'al-point': { fill: THEME.focus },
  'al-point-2': { fill: THEME.accent },
  'al-point-hollow': { fill: THEME.bg, stroke: THEME.focus },
};
const LABEL_CHARS = 14;   // longer tokens are shortened in pictures (never in CSV or JSON)
const PAD = 16;

/**
 * The shortest decimal that reads back as the same number: for a Float32 value (what
 * the engine returns), the shortest string that rounds to that float; else the shortest
 * double. So 0.1f is written 0.1, not 0.10000000149011612.
 */
function exactNumber(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (Math.fround(x) !== x) return String(x);
  for (let p = 1; p <= 9; p++) {
    const s = String(Number(x.toPrecision(p)));
    if (Math.fround(Number(s)) === x) return s;
  }
  return String(x);
}

/** One CSV/TSV field, quoted per RFC 4180 when needed. */
function field(value, sep) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return exactNumber(value);
  let s = String(value);
  // A spreadsheet runs a cell that starts with =, +, -, @ as a formula: keep author text text.
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return s.includes(sep) || /["\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Header and rows of the figure's numbers; the caption goes in a last column, first row. */
function table(fig) {
  if (fig.kind === 'chart') {
    const header = [fig.xName || fig.xLabel, ...fig.series.map((s, k) => s.name || `series ${k + 1}`), 'caption'];
    return [header, ...fig.xs.map((x, i) => [x, ...fig.series.map((s) => s.ys[i]), i === 0 ? fig.caption || '' : ''])];
  }
  const header = ['query \\ key', ...fig.colLabels, 'caption'];
  return [header, ...fig.values.map((row, i) => [fig.rowLabels[i], ...row, i === 0 ? fig.caption || '' : ''])];
}

/**
 * CSV (RFC 4180: comma, CRLF, quotes doubled): a header row of key tokens, one row per
 * query token, each number as exactNumber writes it.
 */
function toCSV(fig) {
  return table(fig).map((row) => row.map((v) => field(v, ',')).join(',')).join('\r\n') + '\r\n';
}

/** Tab-separated: what a spreadsheet splits into cells when pasted. */
function toTSV(fig) {
  return table(fig).map((row) => row.map((v) => field(v, '\t')).join('\t')).join('\r\n') + '\r\n';
}

/** JSON with every number as the engine returned it (non-finite numbers become null). */
function toJSON(fig) {
  if (fig.kind === 'chart') {
    return JSON.stringify({ caption: fig.caption || '', settings: fig.settings || {}, title: fig.title || '', xLabel: fig.xLabel, yLabel: fig.yLabel,
      xs: fig.xs, series: fig.series.map((s, k) => ({ name: s.name || `series ${k + 1}`, values: s.ys })) }, null, 2);
  }
  return JSON.stringify({ caption: fig.caption || '', settings: fig.settings || {}, title: fig.title || '', rowLabels: fig.rowLabels, colLabels: fig.colLabels,
    values: fig.values, masked: fig.masked || null }, null, 2);
}

/** A chart figure from the options of the on-page line chart (kit/svg.js lineChart). */
function chartFigure(opts, settings = {}, note = '') {
  const extra = {};
  for (const key of ['marks', 'guides']) if (opts[key] !== undefined) extra[key] = opts[key];
  return { kind: 'chart', title: opts.title, caption: [opts.desc, note].filter(Boolean).join(' '), settings, xLabel: opts.xLabel, yLabel: opts.yLabel,
    xs: opts.xs, yMax: opts.yMax, ...(opts.yLog ? { yLog: true, yMin: opts.yMin } : {}),
    ...(opts.xMax !== undefined ? { xMax: opts.xMax, xMin: opts.xMin, xPlot: opts.xPlot, xName: opts.xName } : {}), ...extra, series: opts.series };
}

/** "attention-weights-head-1.svg" from the title. */
function fileName(fig, ext) {
  const slug = String(fig.title || 'attention').toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `${slug || 'attention'}.${ext}`;
}

// ---- layout: a list of drawing items in CSS pixels ----

const textWidth = (s, size) => Array.from(s).length * size * 0.6;

function shorten(s) {
  const chars = Array.from(String(s));
  return chars.length > LABEL_CHARS ? `${chars.slice(0, LABEL_CHARS - 1).join('')}\u2026` : chars.join('');
}

/** Splits text into lines of at most `width` pixels (estimated) at spaces. */
function wrap(text, width, size) {
  const max = Math.max(8, Math.floor(width / (size * 0.6)));
  const lines = [];
  let line = '';
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    const chars = Array.from(word);
    const w = chars.length > max ? `${chars.slice(0, max - 1).join('')}\u2026` : word;
    if (line && Array.from(`${line} ${w}`).length > max) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

function heatmapLayout(fig) {
  const rows = fig.values.length, cols = rows ? fig.values[0].length : 0;
  const cell = Math.max(2, Math.min(40, Math.floor(480 / Math.max(rows, cols, 1))));
  const labelled = cell >= 10;
  const size = 11;
  const rowText = fig.rowLabels.map(shorten), colText = fig.colLabels.map(shorten);
  const rowW = labelled ? Math.ceil(Math.max(0, ...rowText.map((s) => textWidth(s, size)))) + 6 : 0;
  const colLong = Math.max(0, ...colText.map((s) => textWidth(s, size)));
  const vertical = labelled && colLong + 4 > cell;
  const colH = !labelled ? 0 : vertical ? Math.ceil(colLong) + 4 : 16;
  const items = [];
  if (fig.title) items.push({ t: 'text', x: PAD, y: PAD + 13, text: fig.title, size: 15, weight: 'bold', fill: THEME.fg });
  let top = PAD + (fig.title ? 24 : 0);
  // The same axis titles as on the page: rows are queries (down), columns keys (across).
  const rowTitle = `${fig.rowWord || 'query'} \u2193`, colTitle = `${fig.colWord || 'key'} \u2192`;
  const left = PAD + Math.max(rowW, Math.ceil(textWidth(rowTitle, 12)) + 6);
  const gridW = cols * cell, gridH = rows * cell;
  items.push({ t: 'text', x: left, y: top + 12, text: colTitle, size: 12, weight: 'bold', fill: THEME.fg });
  top += 18;
  const gridTop = top + colH + 4;
  items.push({ t: 'text', x: left - 6, y: gridTop - 6, text: rowTitle, size: 12, weight: 'bold', fill: THEME.fg, anchor: 'end' });
  if (labelled) {
    colText.forEach((s, j) => {
      const cx = left + j * cell + cell / 2;
      items.push(vertical ? { t: 'text', x: cx + 4, y: top + colH, text: s, size, fill: THEME.muted, rotate: -90 }
        : { t: 'text', x: cx, y: top + 12, text: s, size, fill: THEME.muted, anchor: 'middle' });
    });
    rowText.forEach((s, i) => items.push({ t: 'text', x: left - 6, y: gridTop + i * cell + cell / 2 + 4, text: s, size, fill: THEME.muted, anchor: 'end' }));
  }
  const numbers = fig.showNumbers !== false && cell >= 28;
  const scale = fig.scale || colors;
  fig.values.forEach((row, i) => row.forEach((v, j) => {
    const masked = Boolean(fig.masked && fig.masked[i] && fig.masked[i][j]);
    const x = left + j * cell, y = gridTop + i * cell;
    if (v === null) {
      // A row kept back until the reader answers a question about it.
      items.push({ t: 'rect', x, y, w: cell, h: cell, fill: THEME.line });
      if (cell >= 14) items.push({ t: 'text', x: x + cell / 2, y: y + cell / 2 + 4, text: '?', size, fill: THEME.fg, anchor: 'middle' });
      return;
    }
    const gap = masked || Number.isNaN(v);
    items.push({ t: 'rect', x, y, w: cell, h: cell, fill: gap ? THEME.mask : scale.color(v) });
    if (numbers && !masked) items.push({ t: 'text', x: x + cell / 2, y: y + cell / 2 + 4, text: fixed(v, 2), size, fill: gap ? THEME.fg : scale.textColor(v), anchor: 'middle' });
  }));
  let y = gridTop + gridH + 14;
  const low = fig.scale ? fig.scale.low : '0', high = fig.scale ? fig.scale.high : '1';
  const lowW = fig.scale ? Math.ceil(textWidth(low, size)) + 4 : 12;
  items.push({ t: 'text', x: left, y: y + 9, text: low, size, fill: THEME.fg });
  items.push({ t: 'gradient', x: left + lowW, y, w: 160, h: 10, stops: fig.scale ? fig.scale.stops : Array.from({ length: 11 }, (_, k) => [k / 10, colors.color(k / 10)]) });
  items.push({ t: 'text', x: left + lowW + 166, y: y + 9, text: high, size, fill: THEME.fg });
  let legendEnd = fig.scale ? left + lowW + 170 + Math.ceil(textWidth(high, size)) : left + 190;
  if (anyMasked(fig.masked)) {
    items.push({ t: 'rect', x: left + 200, y, w: 14, h: 10, fill: THEME.mask });
    const label = 'masked (\u2212\u221e before softmax)';
    items.push({ t: 'text', x: left + 220, y: y + 9, text: label, size, fill: THEME.fg });
    legendEnd = left + 220 + textWidth(label, size);
  }
  y += 10;
  const width = Math.ceil(Math.max(left + gridW, legendEnd, 320) + PAD);
  y = captionLines(items, fig.caption, width, y);
  return { width, height: Math.ceil(y + PAD), items };
}

function captionLines(items, caption, width, y) {
  let at = y + 4;
  for (const line of wrap(caption || '', width - 2 * PAD, 12)) {
    at += 16;
    items.push({ t: 'text', x: PAD, y: at, text: line, size: 12, fill: THEME.muted });
  }
  return at;
}

function chartLayout(fig) {
  const g = chart.lineLayout(fig);
  const dx = PAD, dy = PAD + (fig.title ? 24 : 0);
  const items = [];
  if (fig.title) items.push({ t: 'text', x: PAD, y: PAD + 13, text: fig.title, size: 15, weight: 'bold', fill: THEME.fg });
  const { left, right, top, bottom } = g.plot;
  const X = (x) => x + dx, Y = (y) => y + dy;
  items.push({ t: 'line', x1: X(left), y1: Y(bottom), x2: X(right), y2: Y(bottom), stroke: THEME.line });
  items.push({ t: 'line', x1: X(left), y1: Y(top), x2: X(left), y2: Y(bottom), stroke: THEME.line });
  // Exported text is the smallest chart size (chart.TEXT_SIZES[0]): labels left out even there stay out.
  for (const tk of g.xTicks) if (tk.hideFrom > 0) items.push({ t: 'text', x: X(tk.at), y: Y(bottom + 14), text: tk.label, size: 11, fill: THEME.muted, anchor: tk.anchor || 'middle' });
  for (const tk of g.yTicks) {
    items.push({ t: 'line', x1: X(left - 4), y1: Y(tk.at), x2: X(left), y2: Y(tk.at), stroke: THEME.line });
    if (tk.hideFrom > 0) items.push({ t: 'text', x: X(left - 8), y: Y(tk.at + 4), text: tk.label, size: 11, fill: THEME.muted, anchor: 'end' });
  }
  items.push({ t: 'text', x: X((left + right) / 2), y: Y(g.H - 6), text: fig.xLabel, size: 11, fill: THEME.muted, anchor: 'middle' });
  items.push({ t: 'text', x: X(12), y: Y((top + bottom) / 2), text: fig.yLabel, size: 11, fill: THEME.muted, anchor: 'middle', rotate: -90 });
  const mark = (ser, pts) => {
    const st = SERIES_STYLE[ser.cls] || SERIES_STYLE['al-curve'];
    const line = !ser.points || ser.line ? [{ t: 'path', points: pts, stroke: st.stroke || THEME.accent, width: 2, dash: st.dash }] : [];
    if (!ser.points) return line;
    const dot = ser.points === true ? st : SERIES_STYLE[ser.points] || st;
    return [...line, ...pts.map(([x, y]) => ({ t: 'circle', cx: x, cy: y, r: 4, fill: dot.fill || THEME.accent, stroke: dot.stroke }))];
  };
  for (const gd of g.guides) {
    items.push({ t: 'path', points: [[X(left), Y(gd.at)], [X(right), Y(gd.at)]], stroke: THEME.muted, dash: [4, 4] });
    if (gd.label) items.push({ t: 'text', x: X(right - 4), y: Y(gd.at - 4), text: gd.label, size: 11, fill: THEME.muted, anchor: 'end' });
  }
  for (const m of g.marks) {
    const end = m.at > (left + right) / 2;
    items.push({ t: 'path', points: [[X(m.at), Y(top)], [X(m.at), Y(bottom)]], stroke: THEME.focus, dash: [3, 3] });
    if (m.label) items.push({ t: 'text', x: X(m.at + (end ? -4 : 4)), y: Y(m.low ? bottom - 6 : top + 12), text: m.label, size: 11, fill: THEME.focus, anchor: end ? 'end' : 'start' });
  }
  fig.series.forEach((ser, k) => items.push(...mark(ser, g.series[k].map(([x, y]) => [X(x), Y(y)]))));
  let y = dy + g.H + 4;
  fig.series.forEach((ser, k) => {
    y += 16;
    const sample = ser.points && !ser.line ? [[PAD + 12, y - 4]] : [[PAD, y - 4], [PAD + 24, y - 4]];
    items.push(...mark(ser, sample));
    items.push({ t: 'text', x: PAD + 32, y, text: ser.name || `series ${k + 1}`, size: 12, fill: THEME.fg });
  });
  const width = g.W + 2 * PAD;
  y = captionLines(items, fig.caption, width, y);
  return { width, height: Math.ceil(y + PAD), items };
}

/** { width, height, items } in CSS pixels, with a white background first. */
function layout(fig) {
  const l = fig.kind === 'chart' ? chartLayout(fig) : heatmapLayout(fig);
  l.items.unshift({ t: 'rect', x: 0, y: 0, w: l.width, h: l.height, fill: THEME.bg });
  return l;
}

// ---- SVG ----

// Characters XML 1.0 forbids (controls, lone surrogates, U+FFFE/FFFF) would make the file unreadable.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text safe inside an XML element or a quoted attribute: it can never become markup. */
function xml(s) {
  return String(s).replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const r2 = (x) => String(Math.round(x * 100) / 100);

function svgItem(p, k, defs) {
  switch (p.t) {
    case 'rect':
      return `<rect x="${r2(p.x)}" y="${r2(p.y)}" width="${r2(p.w)}" height="${r2(p.h)}" fill="${p.fill}"/>`;
    case 'gradient': {
      const id = `al-scale-${k}`;
      defs.push(`<linearGradient id="${id}">${p.stops.map(([o, c]) => `<stop offset="${o}" stop-color="${c}"/>`).join('')}</linearGradient>`);
      return `<rect x="${r2(p.x)}" y="${r2(p.y)}" width="${r2(p.w)}" height="${r2(p.h)}" fill="url(#${id})"/>`;
    }
    case 'line':
      return `<line x1="${r2(p.x1)}" y1="${r2(p.y1)}" x2="${r2(p.x2)}" y2="${r2(p.y2)}" stroke="${p.stroke}"/>`;
    case 'path':
      return `<path d="${chart.path(p.points)}" fill="none" stroke="${p.stroke}" stroke-width="${p.width || 1}"${p.dash ? ` stroke-dasharray="${p.dash.join(' ')}"` : ''}/>`;
    case 'circle':
      return `<circle cx="${r2(p.cx)}" cy="${r2(p.cy)}" r="${p.r}" fill="${p.fill}"${p.stroke ? ` stroke="${p.stroke}" stroke-width="2"` : ''}/>`;
    case 'text': {
      const anchor = p.anchor && p.anchor !== 'start' ? ` text-anchor="${p.anchor}"` : '';
      const weight = p.weight ? ` font-weight="${p.weight}"` : '';
      const rot = p.rotate ? ` transform="rotate(${p.rotate} ${r2(p.x)} ${r2(p.y)})"` : '';
      return `<text x="${r2(p.x)}" y="${r2(p.y)}" font-size="${p.size}" fill="${p.fill}"${anchor}${weight}${rot}>${xml(p.text)}</text>`;
    }
    default:
      throw new Error(`export: unknown drawing item ${p.t}`);
  }
}

/** A standalone SVG document (UTF-8) of the figure. */
function toSVG(fig) {
  const l = layout(fig);
  const defs = [];
  const body = l.items.map((p, k) => svgItem(p, k, defs)).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}" font-family="${xml(FONT)}">\n`
    + `<title>${xml(fig.title || '')}</title>\n<desc>${xml(fig.caption || '')}</desc>\n<defs>${defs.join('')}</defs>\n${body}\n</svg>\n`;
}

// ---- canvas ----

/**
 * Draws the layout on a CanvasRenderingContext2D (or anything with the same methods),
 * `scale` device pixels per CSS pixel. The canvas must be width*scale x height*scale.
 */
function draw(ctx, l, scale = 1) {
  ctx.save();
  ctx.scale(scale, scale);
  for (const p of l.items) {
    switch (p.t) {
      case 'rect':
        ctx.fillStyle = p.fill;
        ctx.fillRect(p.x, p.y, p.w, p.h);
        break;
      case 'gradient': {
        const g = ctx.createLinearGradient(p.x, 0, p.x + p.w, 0);
        for (const [o, c] of p.stops) g.addColorStop(o, c);
        ctx.fillStyle = g;
        ctx.fillRect(p.x, p.y, p.w, p.h);
        break;
      }
      case 'line':
        ctx.beginPath();
        ctx.strokeStyle = p.stroke;
        ctx.lineWidth = 1;
        ctx.setLineDash([]);
        ctx.moveTo(p.x1, p.y1);
        ctx.lineTo(p.x2, p.y2);
        ctx.stroke();
        break;
      case 'path':
        ctx.beginPath();
        ctx.strokeStyle = p.stroke;
        ctx.lineWidth = p.width || 1;
        ctx.setLineDash(p.dash || []);
        p.points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
        ctx.stroke();
        break;
      case 'circle':
        ctx.beginPath();
        ctx.arc(p.cx, p.cy, p.r, 0, 2 * Math.PI);
        ctx.fillStyle = p.fill;
        ctx.fill();
        if (p.stroke) {
          ctx.strokeStyle = p.stroke;
          ctx.lineWidth = 2;
          ctx.setLineDash([]);
          ctx.stroke();
        }
        break;
      case 'text':
        ctx.font = `${p.weight || 'normal'} ${p.size}px ${FONT}`;
        ctx.fillStyle = p.fill;
        ctx.textAlign = p.anchor === 'middle' ? 'center' : p.anchor === 'end' ? 'right' : 'left';
        ctx.textBaseline = 'alphabetic';
        if (p.rotate) {
          ctx.save();
          ctx.translate(p.x, p.y);
          ctx.rotate((p.rotate * Math.PI) / 180);
          ctx.fillText(p.text, 0, 0);
          ctx.restore();
        } else ctx.fillText(p.text, p.x, p.y);
        break;
      default:
        throw new Error(`export: unknown drawing item ${p.t}`);
    }
  }
  ctx.restore();
}

module.exports = { exactNumber, toCSV, toTSV, toJSON, toSVG, layout, draw, fileName, chartFigure, xml, THEME };
