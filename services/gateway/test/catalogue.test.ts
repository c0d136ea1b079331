import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTENT_TYPES, contentType } from '@inventory/refs';
import type { ModelDef } from '@inventory/rest';
import { usersModels } from '@inventory/users';
import { tenancyModels } from '@inventory/tenancy';
import { dcimModels } from '@inventory/dcim';
import { ipamModels } from '@inventory/ipam';
import { circuitsModels } from '@inventory/circuits';
import { virtualizationModels } from '@inventory/virtualization';
import { extrasModels } from '@inventory/extras';
import { webhooksModels } from '@inventory/webhooks';

/**
 * The content-type catalogue (libs/refs) is what every service knows of the
 * others' models; each declaration is what its own service serves. They
 * must say the same: the owner, the endpoint, the verbose name and the
 * features (tags, custom fields, contacts) of every declared model.
 */
const SERVICES: Record<string, ModelDef[]> = {
  users: usersModels.models,
  tenancy: tenancyModels.models,
  dcim: dcimModels.models,
  ipam: ipamModels.models,
  circuits: circuitsModels.models,
  virtualization: virtualizationModels.models,
  extras: extrasModels.models,
  webhooks: webhooksModels.models,
};

/** Where the two differ on purpose, and why. */
const EXCEPTIONS: Record<string, Partial<Record<'verbose_name' | 'contacts', string>>> = {
  // NetBox's content type says `permission`; the views (OPTIONS, messages) say `object permission`, as NetBox's
  'users.objectpermission': { verbose_name: 'ObjectPermission.Meta.verbose_name is "permission"; its views are named "Object Permission"' },
  // contact assignments attach to tenants (the catalogue's feature); tenancy filters its own contacts locally, not through a projection
  'tenancy.tenant': { contacts: 'the contact filters are tenancy\'s own (contactFilters), not the projection-backed `contacts` declaration' },
  // NetBox 3.7's ProviderAccount has ContactsMixin but its filter set has no contact filters
  'circuits.provideraccount': { contacts: 'contacts attach to it, yet ProviderAccountFilterSet has no contact filters in 3.7' },
  // NetBox 3.7's L2VPN has ContactsMixin but L2VPNFilterSet has no contact filters
  'vpn.l2vpn': { contacts: 'contacts attach to it, yet L2VPNFilterSet has no contact filters in 3.7' },
};

const declared = Object.entries(SERVICES).flatMap(([service, models]) => models.map((m) => [service, m] as const));

test.each(declared.map(([service, m]) => [m.label, service, m] as const))('when %s is declared by %s, then the catalogue says the same of it', (_label, service, m) => {
  const ct = contentType(m.label);
  expect(ct).toBeDefined();
  const except = EXCEPTIONS[m.label] ?? {};
  const catalogue: Record<string, unknown> = { service: ct!.service, endpoint: ct!.endpoint, verbose_name: ct!.verbose_name, tags: ct!.features.tags, custom_fields: ct!.features.custom_fields, contacts: ct!.features.contacts };
  const declaration: Record<string, unknown> = { service, endpoint: m.endpoint, verbose_name: m.verboseName, tags: m.tags, custom_fields: m.customFields, contacts: !!m.contacts };
  for (const key of Object.keys(except)) {
    // an exception that no longer differs is dropped, not kept
    expect([key, catalogue[key] === declaration[key]]).toEqual([key, false]);
    delete catalogue[key];
    delete declaration[key];
  }
  expect(catalogue).toEqual(declaration);
});

test('when the catalogue lists a model with an endpoint, then its service declares it (content types are served by extras\' own route)', () => {
  const labels = new Set(declared.map(([, m]) => m.label));
  expect(CONTENT_TYPES.filter((ct) => ct.endpoint && !labels.has(ct.label)).map((ct) => ct.label)).toEqual(['contenttypes.contenttype']);
});

test('when a service declares its models, then their files are named one way: kebab-case, after the model or the family declared together', () => {
  const root = path.resolve(__dirname, '../../..');
  const offending = fs
    .readdirSync(path.join(root, 'services'))
    .flatMap((s) => (fs.existsSync(path.join(root, 'services', s, 'src/models')) ? fs.readdirSync(path.join(root, 'services', s, 'src/models')).map((f) => `${s}/${f}`) : []))
    .filter((f) => !/^[a-z]+\/[a-z0-9]+(-[a-z0-9]+)*\.ts$/.test(f));
  expect(offending).toEqual([]);
});
