/** `npm run import -- --from <NetBox URL> --token <token> ...`: see netbox/cli.ts, and the README's "Bring your data from NetBox". */
import { ImportFailure, parseArgs, runImport } from './netbox';

async function main(): Promise<number> {
  try {
    const result = await runImport({ ...parseArgs(process.argv.slice(2)), tty: !!process.stdout.isTTY });
    return result.exitCode;
  } catch (err) {
    if (!(err instanceof ImportFailure)) throw err;
    console.error(`import: ${err.message}`);
    return 1;
  }
}

void main().then((code) => process.exit(code));
