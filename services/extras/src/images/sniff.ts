/** image-size, loaded with the first image (about 25 modules that most requests never need). */
let sizer: typeof import('image-size') | undefined;
const imageSize = (data: Buffer) => (sizer ??= require('image-size') as typeof import('image-size')).imageSize(data);

/**
 * What an uploaded file is, read from its bytes (never from its name or the
 * client's Content-Type): one of the raster types NetBox's image form takes,
 * with its dimensions. SVG and the rest are refused: a file served back from
 * this origin must never be something a browser runs.
 */
export interface ImageKind {
  /** Extension the file is stored under, which also decides the Content-Type it is served with. */
  ext: string;
  mime: string;
}

export const IMAGE_KINDS: Readonly<Record<string, ImageKind>> = {
  png: { ext: 'png', mime: 'image/png' },
  jpg: { ext: 'jpg', mime: 'image/jpeg' },
  gif: { ext: 'gif', mime: 'image/gif' },
  webp: { ext: 'webp', mime: 'image/webp' },
  bmp: { ext: 'bmp', mime: 'image/bmp' },
};

/** The Content-Type of a stored file, by its extension (stored names always carry one of ours); null for anything else. */
export function mimeOf(name: string): string | null {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return Object.values(IMAGE_KINDS).find((k) => k.ext === ext)?.mime ?? null;
}

/** Image dimensions are PositiveSmallIntegerFields in NetBox. */
export const MAX_DIMENSION = 32767;

export interface Sniffed {
  kind: ImageKind;
  width: number;
  height: number;
}

/**
 * The file's end as its format writes it: a header followed by anything
 * (a truncated upload, a script behind a PNG signature) is not an image.
 * NetBox has Pillow verify the file; this is the same guard, by structure.
 */
function complete(type: string, data: Buffer): boolean {
  switch (type) {
    case 'png':
      return data.length >= 12 && data.subarray(data.length - 8, data.length - 4).toString('latin1') === 'IEND';
    case 'jpg':
      // the end-of-image marker, possibly followed by what cameras append
      return data.lastIndexOf(Buffer.from([0xff, 0xd9])) > 2;
    case 'gif':
      return data[data.length - 1] === 0x3b;
    case 'webp':
      return data.length >= 12 && data.readUInt32LE(4) + 8 <= data.length;
    case 'bmp':
      return data.length >= 6 && data.readUInt32LE(2) <= data.length;
    default:
      return false;
  }
}

/** The image's kind and size, or null when the bytes are not a complete image of an accepted kind. */
export function sniffImage(data: Buffer): Sniffed | null {
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(data);
  } catch {
    return null; // not a type it knows, or a header it cannot read
  }
  const kind = size.type ? IMAGE_KINDS[size.type] : undefined;
  if (!kind || !complete(size.type!, data)) return null;
  const { width, height } = size;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width! < 1 || height! < 1) return null;
  return { kind, width: width!, height: height! };
}
