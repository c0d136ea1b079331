import { createModelTables, type Migration } from '@inventory/rest';

export const migrations: Migration[] = [
  {
    name: '0001_initial',
    up: ({ qi, schema, models }) => createModelTables(qi, schema, models),
  },
];
