import { InventoryApi, ItemErrors, type Row } from './api';
import { LibraryFileError, type FileProblem } from './errors';
import { keyName } from './schema';

/** Where an item of a list write comes from: its file and key, for naming it when the API refuses it. */
export interface Origin {
  file: string;
  keyPath: (string | number)[];
  lineOf: (keyPath: (string | number)[]) => number | undefined;
}

export type OnError = 'stop' | 'skip';

/**
 * List writes that name the file of every item the API refuses. A list write
 * is all or none: on a refusal nothing was written, so with `skip` the
 * refused files are set aside and the rest is sent again.
 */
export class FileWriter {
  /** Files refused (by the schema or the API), with why. */
  readonly failed = new Map<string, FileProblem[]>();

  constructor(readonly api: InventoryApi, private readonly onError: OnError) {}

  isFailed = (file: string) => this.failed.has(file);

  fail(problems: FileProblem[]): void {
    for (const p of problems) this.failed.set(p.file, [...(this.failed.get(p.file) ?? []), p]);
    if (this.onError === 'stop') throw new LibraryFileError(problems);
  }

  /** POST or PATCH `items`; returns each written item's result by its index in `items` (refused and set-aside items absent). */
  async write(method: 'create' | 'update', endpoint: string, items: Row[], origins: Origin[]): Promise<Map<number, Row>> {
    let live = items.map((_, i) => i).filter((i) => !this.isFailed(origins[i].file));
    for (;;) {
      if (!live.length) return new Map();
      try {
        const rows = await this.api[method](endpoint, live.map((i) => items[i]));
        return new Map(live.map((i, k) => [i, rows[k]]));
      } catch (err) {
        if (!(err instanceof ItemErrors)) throw err;
        this.fail(err.errors.flatMap((e) => apiProblems(origins[live[e.index]], e.messages)));
        live = live.filter((i) => !this.isFailed(origins[i].file));
      }
    }
  }
}

/** The API's field messages as problems of the file's keys: `interfaces[2].name: refused by the API: ... already exists.` */
function apiProblems(o: Origin, messages: Record<string, unknown>): FileProblem[] {
  return Object.entries(messages).map(([field, m]) => {
    const keyPath = field === 'non_field_errors' || field === '__all__' ? o.keyPath : [...o.keyPath, field];
    const text = Array.isArray(m) ? m.join(' ') : JSON.stringify(m);
    return { file: o.file, key: keyName(keyPath), line: o.lineOf(keyPath) ?? o.lineOf(o.keyPath), message: `refused by the API: ${text}` };
  });
}
