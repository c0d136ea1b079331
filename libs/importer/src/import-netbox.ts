/** `npm run import -- --from <NetBox URL> --token <token> ...`: see netbox/cli.ts, and the README's "Bring your data from NetBox". */
import { ImportFailure, parseArgs, runImport } from './netbox';

/** Runs an import with these command-line arguments; the exit status. */
export async function main(args: string[]): Promise<number> {
  try {
    const result = await runImport({ ...parseArgs(args), tty: !!process.stdout.isTTY });
    return result.exitCode;
  } catch (err) {
    if (!(err instanceof ImportFailure)) throw err;
    console.error(`import: ${err.message}`);
    return 1;
  }
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => process.exit(code));
