import { defineModel, f, type ModelDef } from '@inventory/rest';

export const providerAccount: ModelDef = defineModel({
  label: 'circuits.provideraccount',
  endpoint: 'provider-accounts',
  table: 'provider_account',
  verboseName: 'provider account',
  fields: {
    provider: f.fk('circuits.provider', 'PROTECT', { required: true }),
    name: f.string(100),
    account: f.name(100, { label: 'account ID' }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name', 'account'],
  display: (row) => (row.name ? `${String(row.account)} (${String(row.name)})` : String(row.account)),
  ordering: ['provider', 'account'],
  search: ['name', 'description', 'account', 'comments'],
  unique: [
    { fields: ['provider', 'account'], message: 'Provider account with this Provider and Account ID already exists.' },
    // NetBox's conditional constraint (name unique per provider when given) answers with Django's generic text
    { fields: ['provider', 'name'], unlessBlank: ['name'], message: 'Constraint “circuits_provideraccount_unique_provider_name” is violated.' },
  ],
});
