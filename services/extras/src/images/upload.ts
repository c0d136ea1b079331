import { createHash } from 'node:crypto';
import type { Request } from 'express';
import busboy from 'busboy';
import { BadRequest, ValidationError } from '@inventory/core';
import { MAX_DIMENSION, sniffImage, type ImageKind } from './sniff';

/**
 * An uploaded image, checked: what a multipart write's `image` part holds
 * once read. Only a multipart request can put one in a body (JSON cannot
 * make this class), so the model's rules tell a file from a JSON value.
 */
export class ImageUpload {
  /** Where this request stored the file (a transaction run again stores it again): checked, and removed if no row names it, after the answer. */
  readonly stored: string[] = [];
  readonly sha256: string;

  constructor(
    /** The client's file name (sanitised when stored). */
    readonly filename: string,
    readonly data: Buffer,
    readonly kind: ImageKind,
    readonly width: number,
    readonly height: number,
  ) {
    this.sha256 = createHash('sha256').update(data).digest('hex');
  }

  /** How the body reads in the idempotency fingerprint: the same key with another file is another request. */
  toJSON(): Record<string, string> {
    return { filename: this.filename, sha256: this.sha256 };
  }
}

export const isMultipart = (req: Request): boolean => /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');

/** DRF's and Django's texts for a file field. */
export const IMAGE_ERRORS = {
  required: 'No file was submitted.',
  notAFile: 'The submitted data was not a file. Check the encoding type on the form.',
  empty: 'The submitted file is empty.',
  invalid: 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.',
  tooLarge: (max: number) => `The file is too large: an image may have at most ${max} bytes.`,
  tooWide: `Ensure the image is at most ${MAX_DIMENSION} pixels wide and high.`,
};

/** Form limits beyond the image's own size: a form of a few short fields. */
const FIELD_LIMITS = { fields: 50, fieldSize: 64 * 1024, parts: 60 };

interface FilePart {
  filename: string;
  chunks: Buffer[];
  size: number;
  truncated: boolean;
}

/**
 * Reads a multipart form (as pynetbox and requests send it: fields and an
 * `image` file part) into the write's body: its fields as strings (a
 * repeated one: the last, as Django's QueryDict reads it) and, under
 * `image`, the checked ImageUpload. Other file parts are read and dropped.
 * The whole body is always read, so the keep-alive connection stays usable.
 * Throws a 400 in NetBox's shape for a bad image, a malformed form.
 */
export async function readImageForm(req: Request, maxImageSize: number): Promise<Record<string, unknown>> {
  let parser: busboy.Busboy;
  try {
    // one byte over the limit tells a file of exactly the limit from a larger one
    parser = busboy({ headers: req.headers, limits: { ...FIELD_LIMITS, files: 1, fileSize: maxImageSize + 1 } });
  } catch (err) {
    req.resume();
    throw new BadRequest(`Multipart form parse error - ${(err as Error).message}`);
  }
  const fields: Record<string, string> = {};
  let file: FilePart | null = null;
  let notAFile = false;
  await new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value) => {
      if (name === 'image') notAFile = true; // a text value where the file goes
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'image' || file) {
        stream.resume();
        return;
      }
      const part: FilePart = { filename: info.filename ?? '', chunks: [], size: 0, truncated: false };
      file = part;
      stream.on('data', (c: Buffer) => {
        part.size += c.length;
        part.chunks.push(c);
      });
      stream.on('limit', () => (part.truncated = true));
    });
    parser.on('close', () => resolve());
    parser.on('error', (err: Error) => {
      req.unpipe(parser);
      req.resume();
      reject(new BadRequest(`Multipart form parse error - ${err.message}`));
    });
    req.on('error', reject);
    req.pipe(parser);
  });
  const body: Record<string, unknown> = { ...fields };
  const part = file as FilePart | null;
  if (part) body.image = checkedImage(part, maxImageSize);
  else if (notAFile) throw new ValidationError({ image: [IMAGE_ERRORS.notAFile] });
  return body;
}

function checkedImage(part: FilePart, maxImageSize: number): ImageUpload {
  const fail = (message: string) => new ValidationError({ image: [message] });
  if (part.truncated || part.size > maxImageSize) throw fail(IMAGE_ERRORS.tooLarge(maxImageSize));
  if (part.size === 0) throw fail(IMAGE_ERRORS.empty);
  const data = Buffer.concat(part.chunks);
  const image = sniffImage(data);
  if (!image) throw fail(IMAGE_ERRORS.invalid);
  if (image.width > MAX_DIMENSION || image.height > MAX_DIMENSION) throw fail(IMAGE_ERRORS.tooWide);
  return new ImageUpload(part.filename, data, image.kind, image.width, image.height);
}
