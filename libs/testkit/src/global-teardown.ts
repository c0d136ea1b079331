import type { RunningPostgres, RunningRabbit } from '@inventory/infra';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  await (g.__inventoryRabbit as RunningRabbit | undefined)?.stop();
  await (g.__inventoryPg as RunningPostgres | undefined)?.stop();
}
