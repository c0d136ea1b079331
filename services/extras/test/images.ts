import { crc32, deflateSync } from 'node:zlib';

/** Test images, made here: a real PNG encoder (signature, IHDR, IDAT, IEND with their CRCs), no fixture files. */

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A width x height RGB PNG. `noise` fills the pixels with incompressible
 * bytes (for a file of a given size); otherwise a gradient.
 */
export function png(width: number, height: number, noise = false): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows: Buffer[] = [];
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let i = 1; i < row.length; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      row[i] = noise ? seed >>> 24 : (i + y) & 0xff;
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 1 x 1 GIF89a. */
export const GIF_1x1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A form as pynetbox (requests) sends an upload: the fields, and the file under `image`. */
export function imageForm(fields: Record<string, string | number>, file?: { data: Buffer; name: string; type?: string }): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
  if (file) form.append('image', new Blob([file.data], { type: file.type ?? 'application/octet-stream' }), file.name);
  return form;
}
