import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { LibraryFileError } from './errors';

export type TypeKind = 'device' | 'module';

/** One YAML file of the library, parsed. */
export interface LibraryFile {
  /** Relative to the library's folder, e.g. `device-types/Cisco/C9300-24T.yaml`. */
  file: string;
  kind: TypeKind;
  data: Record<string, unknown>;
  /** The line of a key path (for error messages). */
  lineOf: (keyPath: (string | number)[]) => number | undefined;
}

const FOLDERS: [string, TypeKind][] = [['device-types', 'device'], ['module-types', 'module']];

/** Every `device-types/<Manufacturer>/*.y(a)ml` and `module-types/<Manufacturer>/*.y(a)ml`, in a stable order. */
export async function listLibraryFiles(root: string): Promise<{ file: string; kind: TypeKind }[]> {
  const out: { file: string; kind: TypeKind }[] = [];
  for (const [folder, kind] of FOLDERS) {
    const vendors = await fs.readdir(path.join(root, folder), { withFileTypes: true }).catch(() => []);
    for (const vendor of vendors.filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
      const names = (await fs.readdir(path.join(root, folder, vendor))).filter((n) => /\.ya?ml$/i.test(n)).sort();
      for (const n of names) out.push({ file: `${folder}/${vendor}/${n}`, kind });
    }
  }
  return out;
}

/** Reads and parses one file; a YAML syntax error is a LibraryFileError naming its line. */
export async function readLibraryFile(root: string, file: string, kind: TypeKind): Promise<LibraryFile> {
  const text = await fs.readFile(path.join(root, file), 'utf8');
  return parseLibraryText(file, kind, text);
}

export function parseLibraryText(file: string, kind: TypeKind, text: string): LibraryFile {
  const lines = new LineCounter();
  // YAML 1.1, as the library's own checks (PyYAML) read it: `True`, `yes` are booleans
  const doc = parseDocument(text, { version: '1.1', lineCounter: lines, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    throw new LibraryFileError([{ file, key: '', line: lines.linePos(e.pos[0]).line, message: `not valid YAML: ${e.message.split('\n')[0]}` }]);
  }
  keepLeadingZeros(doc);
  const data: unknown = doc.toJS();
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new LibraryFileError([{ file, key: '', line: 1, message: 'expected a mapping of keys (manufacturer, model, ...)' }]);
  }
  const lineOf = (keyPath: (string | number)[]) => {
    const node = keyPath.length ? doc.getIn(keyPath, true) : doc.contents;
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    return range ? lines.linePos(range[0]).line : undefined;
  };
  return { file, kind, data: data as Record<string, unknown>, lineOf };
}

/**
 * PyYAML (YAML 1.1) reads an unquoted `08` or `09` as the string "08": it is
 * not an octal number. The `yaml` package makes it 8; port names such as
 * Panduit's `08` must stay strings.
 */
function keepLeadingZeros(doc: Document): void {
  visit(doc, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === 'number' && typeof node.source === 'string' && /^[-+]?0[0-9]*[89][0-9]*$/.test(node.source)) {
        node.value = node.source;
      }
    },
  });
}
