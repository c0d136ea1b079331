import type { Row } from '@inventory/rest';
import type { Mounted } from './elevation';

export interface ElevationDrawing {
  rack: Row;
  face: string;
  devices: Mounted[];
  unitWidth: number;
  unitHeight: number;
  legendWidth: number;
  /** `attr:value` pairs (`id:12`, `name:core1`): matching devices are outlined. */
  highlight: string[];
}

const escape = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** Black or white text, whichever reads better on the fill (NetBox's foreground_color). */
function textColor(hex: string): string {
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) || 0);
  return r * 0.299 + g * 0.587 + b * 0.114 > 186 ? '#000000' : '#ffffff';
}

function highlighted(d: Mounted, highlight: string[]): boolean {
  return highlight.some((h) => {
    const [attr, value] = h.split(':', 2);
    if (attr === 'id') return String(d.id) === value;
    if (attr === 'name') return d.name === value;
    return false;
  });
}

/**
 * The rack elevation as an SVG drawing: unit numbers in the legend, each
 * mounted device a box in its role's colour spanning its units and linking
 * to it; devices the user may not view are shaded and unnamed (they still
 * take the space); full-depth devices mounted on the other face are drawn too.
 */
export function renderElevationSvg(o: ElevationDrawing): string {
  const units = Math.round(Number(o.rack.u_height) * 2) / 2;
  const start = Number(o.rack.starting_unit);
  const margin = 15;
  const width = o.legendWidth + o.unitWidth + margin * 2;
  const height = units * o.unitHeight + margin * 2 + 20;
  const top = margin + 20;
  // y of the top edge of unit u (units count up from the bottom unless descending)
  const yOf = (u: number, h: number) => (o.rack.desc_units ? top + (u - start) * o.unitHeight : top + (start + units - u - h) * o.unitHeight);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" class="rack_elevation">`,
    '<style>.rack{fill:none;stroke:#404040;stroke-width:2}.unit{fill:none;stroke:#e0e0e0}.legend{font:10px sans-serif;fill:#606060}.device text{font:11px sans-serif}.title{font:bold 12px sans-serif}</style>',
    `<text class="title" x="${margin + o.legendWidth}" y="${margin + 8}">${escape(String(o.rack.name))} (${o.face === 'rear' ? 'Rear' : 'Front'})</text>`,
  ];
  for (let i = 0; i < units; i += 1) {
    const u = start + i;
    const y = yOf(u, 1);
    parts.push(`<rect class="unit" x="${margin + o.legendWidth}" y="${y}" width="${o.unitWidth}" height="${o.unitHeight}"/>`);
    parts.push(`<text class="legend" x="${margin + o.legendWidth - 4}" y="${y + o.unitHeight / 2 + 3}" text-anchor="end">${u}</text>`);
  }
  for (const d of o.devices) {
    const y = yOf(d.position, d.height);
    const h = d.height * o.unitHeight;
    const x = margin + o.legendWidth;
    const fill = d.visible ? `#${d.color}` : '#c0c0c0';
    const stroke = highlighted(d, o.highlight) ? ' stroke="#ff9800" stroke-width="3"' : ' stroke="#404040"';
    const label = d.visible ? `<text x="${x + o.unitWidth / 2}" y="${y + h / 2 + 4}" text-anchor="middle" fill="${textColor(d.color)}">${escape(d.name ?? d.display)}</text>` : '';
    const box = `<rect x="${x + 1}" y="${y + 1}" width="${o.unitWidth - 2}" height="${h - 2}" fill="${fill}"${stroke}/>${label}`;
    parts.push(d.visible && d.url ? `<a class="device" href="${escape(d.url)}"><title>${escape(d.display)}</title>${box}</a>` : `<g class="device">${box}</g>`);
  }
  parts.push(`<rect class="rack" x="${margin + o.legendWidth}" y="${top}" width="${o.unitWidth}" height="${units * o.unitHeight}"/>`, '</svg>');
  return parts.join('\n');
}
