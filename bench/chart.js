'use strict';
/**
 * The figures against their goals as one SVG, written by hand (no browser, no package): one bar
 * per figure with a numeric goal, on a log scale of how far the figure is from its goal
 * (goal ÷ figure for times, memory and other "at most" goals; figure ÷ goal for rates and ratios).
 * The goal is the line at 1×: a bar to its right met the goal by that factor, a bar to its left
 * missed it by that factor. Figures whose goal is 0 or not a number (no ratio to draw) are listed
 * in RESULTS.md only.
 */

const WIDTH = 1100;
const LABEL_RIGHT = 440; // labels end here (right-aligned)
const LABEL_CHARS = 66;
const PLOT = { left: 452, right: 732 };
const ROW = 19;
const TOP = 78;
const DOMAIN = [-1, 1]; // log10 of the factor: 0.1× … 10×; beyond is clamped and marked
const COLORS = { met: '#2e7d32', missed: '#c62828', grid: '#d0d0d0', text: '#222', muted: '#666' };

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const x = (log) => PLOT.left + ((Math.min(DOMAIN[1], Math.max(DOMAIN[0], log)) - DOMAIN[0]) / (DOMAIN[1] - DOMAIN[0])) * (PLOT.right - PLOT.left);

/** How far a figure is from its goal (> 1: met by that factor), or null when there is no ratio to draw. */
function factor(row) {
  const g = row.goal;
  if (!g || typeof g.value !== 'number' || typeof row.value !== 'number' || g.value === 0 || row.value <= 0) return null;
  if (g.op === '<' || g.op === '<=') return g.value / row.value;
  if (g.op === '>=') return row.value / g.value;
  return null;
}

/**
 * sections: [{ title, rows: [{ figure, value, unit, goal, met }] }]; `caption` names the run.
 * Returns the SVG's text.
 */
function chart(sections, caption, format) {
  const lines = [];
  let y = TOP;
  for (const section of sections) {
    const rows = section.rows.filter((r) => factor(r) !== null);
    if (!rows.length) continue;
    y += 6;
    lines.push(`<text x="${LABEL_RIGHT}" y="${y + 12}" text-anchor="end" font-weight="bold">${esc(section.title)}</text>`);
    y += ROW;
    for (const row of rows) {
      const f = factor(row);
      const log = Math.log10(f);
      const color = row.met ? COLORS.met : COLORS.missed;
      const [a, b] = [x(0), x(log)].sort((p, q) => p - q);
      const clipped = log > DOMAIN[1] || log < DOMAIN[0];
      const label = row.figure.length > LABEL_CHARS ? `${row.figure.slice(0, LABEL_CHARS - 1)}…` : row.figure;
      lines.push(`<text x="${LABEL_RIGHT}" y="${y + 13}" text-anchor="end">${esc(label)}</text>`);
      lines.push(`<rect x="${a.toFixed(1)}" y="${y + 3}" width="${Math.max(1.5, b - a).toFixed(1)}" height="${ROW - 6}" fill="${color}"/>`);
      if (clipped) {
        const tip = x(log);
        const dir = log > 0 ? 1 : -1;
        lines.push(`<path d="M${tip} ${y + 2} l${6 * dir} ${(ROW - 4) / 2} l${-6 * dir} ${(ROW - 4) / 2} z" fill="${color}"/>`);
      }
      const goal = `${row.goal.op === '>=' ? '≥' : row.goal.op === '<=' ? '≤' : row.goal.op} ${format(row.goal.value)}`;
      lines.push(`<text x="${PLOT.right + 12}" y="${y + 13}" fill="${color}">${esc(`${format(row.value)} ${row.unit}`)} <tspan fill="${COLORS.muted}">${esc(`(goal ${goal}; ${f >= 1 ? `${format(f)}× to spare` : `${format(1 / f)}× over`})`)}</tspan></text>`);
      y += ROW;
    }
  }
  const bottom = y + 8;
  const ticks = [0.1, 0.2, 0.5, 1, 2, 5, 10];
  const grid = ticks.map((t) => {
    const tx = x(Math.log10(t)).toFixed(1);
    const strong = t === 1;
    return `<line x1="${tx}" y1="${TOP - 4}" x2="${tx}" y2="${bottom}" stroke="${strong ? '#000' : COLORS.grid}" stroke-width="${strong ? 1.5 : 1}"${strong ? '' : ' stroke-dasharray="3 3"'}/>` +
      `<text x="${tx}" y="${TOP - 8}" text-anchor="middle" fill="${COLORS.muted}">${t === 1 ? 'goal' : `${t}×`}</text>` +
      `<text x="${tx}" y="${bottom + 14}" text-anchor="middle" fill="${COLORS.muted}">${t === 1 ? 'goal' : `${t}×`}</text>`;
  });
  const height = bottom + 26;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12" fill="${COLORS.text}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">Benchmark figures against their goals</text>`,
    `<text x="12" y="40" fill="${COLORS.muted}">${esc(caption)}</text>`,
    `<text x="12" y="56" fill="${COLORS.muted}">${esc('Bar: how far each figure is from its goal, log scale (goal ÷ figure for times and memory, figure ÷ goal for rates and ratios). Right of the line: met.')}</text>`,
    ...grid,
    ...lines,
    '</svg>',
    '',
  ].join('\n');
}

module.exports = { chart, factor };
