/**
 * Prints the DDL the declarations describe, as statements for a service's
 * frozen first migration (docs/decisions/005-frozen-migrations.md):
 *
 *   node -r ./libs/testkit/src/ts-register.js libs/testkit/src/initial-ddl.ts ipam
 *
 * Runs `createModelTables` on a scratch database and records every statement
 * it executed; paste the output into `0001_initial.ts` with `${s}` for the
 * schema, then never regenerate it. The tables every service has are not
 * in it: list the library's `sharedTables` migration after it.
 */
import { Sequelize } from 'sequelize';
import { createModelTables, type ModelDef } from '@inventory/rest';
import { createTestDatabase } from './database';

async function main(service: string): Promise<void> {
  const models = (require(`@inventory/${service}`)[`${service}Models`] as { models: ModelDef[] }).models;
  const db = await createTestDatabase();
  const statements: string[] = [];
  const sequelize = new Sequelize(db.url, { dialect: 'postgres', logging: (text) => statements.push(text.replace(/^Executing \([^)]*\): /, '')) });
  try {
    await createModelTables(sequelize.getQueryInterface(), service, models);
  } finally {
    await sequelize.close();
    await db.drop();
  }
  const body = statements.map((s) => s.replace(/;$/, '').replaceAll(`"${service}".`, '${s}.').replaceAll(`"${service}"`, '${s}'));
  process.stdout.write(body.map((s) => `    \`${s}\`,`).join('\n') + '\n');
}

main(process.argv[2] ?? '').catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
