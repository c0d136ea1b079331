import { runSchemaHistory } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';

/** The indexes of a database the previous release created (its frozen 0001_initial). */
const releasedIndexes = [
  '_tagged_item_pkey',
  'contact_assignment_contact_id',
  'contact_assignment_content_type_object_id',
  'contact_assignment_pkey',
  'contact_assignment_role_id',
  'contact_assignment_unique_0',
  'contact_group__path_idx',
  'contact_group_id',
  'contact_group_parent_id',
  'contact_group_pkey',
  'contact_group_unique_0',
  'contact_pkey',
  'contact_role_name_key',
  'contact_role_pkey',
  'contact_role_slug_key',
  'contact_unique_0',
  'tagged_item_tag_id',
  'tenancy_tagged_uniq',
  'tenant_group__path_idx',
  'tenant_group_id',
  'tenant_group_name_key',
  'tenant_group_parent_id',
  'tenant_group_pkey',
  'tenant_group_slug_key',
  'tenant_pkey',
  'tenant_unique_0',
  'tenant_unique_1',
  'tenant_unique_2',
  'tenant_unique_3',
];

runSchemaHistory({ schema: 'tenancy', models, migrations, releasedIndexes });
