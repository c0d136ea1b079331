import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Folder of the attachments under the media root, and the prefix of their stored names (NetBox's upload_to). */
export const ATTACHMENT_DIR = 'image-attachments';

/** A stored name's column (NetBox's FileField max_length). */
export const MAX_STORED_NAME = 100;

/** A file name as it may appear under the media root: no path, no leading dot, nothing a URL or a shell would read twice. */
const SAFE_FILE = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** Django's get_valid_name: spaces to underscores, then only word characters, dashes and dots. */
export function validName(name: string): string {
  return name.trim().replace(/\s+/g, '_').replace(/[^A-Za-z0-9_.-]/g, '').replace(/^[.]+/, '');
}

/**
 * The files of image attachments, under MEDIA_ROOT/image-attachments/. Names
 * are stored as NetBox stores them (`image-attachments/<model>_<id>_<file>`),
 * always with the extension of the image's real type; a name taken is never
 * overwritten (a random suffix, as Django's storage adds).
 */
export class MediaStore {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The absolute path of a stored name; null for a name that is not one of ours (it could leave the folder). */
  pathOf(stored: string): string | null {
    const [dir, file, ...rest] = stored.split('/');
    if (dir !== ATTACHMENT_DIR || !file || rest.length || !SAFE_FILE.test(file)) return null;
    return path.join(this.root, ATTACHMENT_DIR, file);
  }

  /**
   * Writes the file under a new name built from `stem` (`<model>_<id>_<file name>`)
   * and `ext`, and returns the stored name. The stem is cut so the name fits its column.
   */
  async save(stem: string, ext: string, data: Buffer): Promise<string> {
    const dir = path.join(this.root, ATTACHMENT_DIR);
    await fs.mkdir(dir, { recursive: true });
    const base = validName(stem) || 'image';
    for (let attempt = 0; ; attempt++) {
      const suffix = attempt === 0 ? '' : `_${randomBytes(5).toString('hex').slice(0, 7)}`;
      const room = MAX_STORED_NAME - ATTACHMENT_DIR.length - 1 - suffix.length - ext.length - 1;
      const file = `${base.slice(0, room)}${suffix}.${ext}`;
      try {
        // 'wx': fails when the name is taken, so two uploads never share (or overwrite) a file
        await fs.writeFile(path.join(dir, file), data, { flag: 'wx', mode: 0o640 });
        return `${ATTACHMENT_DIR}/${file}`;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 10) throw err;
      }
    }
  }

  /** Removes stored files; one already gone is fine (a delete applied twice). */
  async remove(stored: string[]): Promise<void> {
    for (const name of stored) {
      const file = this.pathOf(name);
      if (!file) continue;
      await fs.rm(file, { force: true });
    }
  }

  /**
   * Files no row names, older than `graceMs` (an upload in flight on another
   * replica is younger): left by a process that stopped between storing a
   * file and its commit, or between a delete's commit and the file's removal.
   */
  async sweep(named: (stored: string[]) => Promise<Set<string>>, graceMs: number): Promise<string[]> {
    const dir = path.join(this.root, ATTACHMENT_DIR);
    let files: string[];
    try {
      files = await fs.readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const old: string[] = [];
    for (const file of files) {
      const stored = `${ATTACHMENT_DIR}/${file}`;
      if (!this.pathOf(stored)) continue; // not a name this store makes: not ours to remove
      const stat = await fs.stat(path.join(dir, file)).catch(() => null);
      if (stat?.isFile() && Date.now() - stat.mtimeMs > graceMs) old.push(stored);
    }
    if (!old.length) return [];
    const keep = await named(old);
    const orphans = old.filter((n) => !keep.has(n));
    await this.remove(orphans);
    return orphans;
  }
}
