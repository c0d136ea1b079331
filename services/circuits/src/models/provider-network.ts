import { defineModel, f, type ModelDef } from '@inventory/rest';

export const providerNetwork: ModelDef = defineModel({
  label: 'circuits.providernetwork',
  endpoint: 'provider-networks',
  table: 'provider_network',
  verboseName: 'provider network',
  fields: {
    provider: f.fk('circuits.provider', 'PROTECT', { required: true }),
    name: f.name(100),
    service_id: f.string(100, { label: 'service ID' }),
    description: f.description(),
    comments: f.comments(),
  },
  brief: ['name'],
  display: (row) => String(row.name),
  ordering: ['provider', 'name'],
  search: ['name', 'service_id', 'description', 'comments'],
  unique: [{ fields: ['provider', 'name'], message: 'Provider network with this Provider and Name already exists.' }],
});
