/** Where a library file is wrong: the file, the key (a path such as `interfaces[3].type`), the line when known. */
export interface FileProblem {
  file: string;
  key: string;
  line?: number;
  message: string;
}

/** A file the schema or our API refused; the run stops on it unless `--on-error=skip`. */
export class LibraryFileError extends Error {
  constructor(readonly problems: FileProblem[]) {
    super(problems.map(describeProblem).join('\n'));
    this.name = 'LibraryFileError';
  }
}

/** An answer of our API that is not about one file (auth, a 5xx, the server unreachable). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly body: unknown, what: string) {
    super(`${what}: HTTP ${status} ${typeof body === 'string' ? body : JSON.stringify(body)}`.slice(0, 2000));
    this.name = 'ApiError';
  }
}

/** `device-types/Cisco/X.yaml:12: interfaces[3].type: must be equal to one of the allowed values` */
export function describeProblem(p: FileProblem): string {
  return `${p.file}${p.line ? `:${p.line}` : ''}: ${p.key || '(file)'}: ${p.message}`;
}
