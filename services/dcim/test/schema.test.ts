import { runSchemaHistory } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';
import { extraSchema } from '../src/migrations/extra-schema';

/** The indexes a database of the first release has (its frozen 0001_initial). */
const releasedIndexes = [
  '_idempotency_key_created_idx',
  '_idempotency_key_pkey',
  '_outbox_id_uniq',
  '_outbox_pkey',
  '_outbox_request_id_idx',
  '_outbox_sent_at_idx',
  '_outbox_unsent_idx',
  '_processed_event_pkey',
  '_processed_event_processed_at_idx',
  '_tagged_item_content_type_object_id_tag_id_uniq',
  '_tagged_item_pkey',
  '_tagged_item_tag_id_idx',
  'location__path_idx',
  'location_parent_id_idx',
  'location_pkey',
  'location_site_id_idx',
  'location_site_id_name_where_parent_id_null_uniq',
  'location_site_id_parent_id_name_uniq',
  'location_site_id_parent_id_slug_uniq',
  'location_site_id_slug_where_parent_id_null_uniq',
  'location_tenant_id_idx',
  'region__path_idx',
  'region_name_where_parent_id_null_uniq',
  'region_parent_id_idx',
  'region_parent_id_name_uniq',
  'region_parent_id_slug_uniq',
  'region_pkey',
  'region_slug_where_parent_id_null_uniq',
  'site__name_idx',
  'site_asns_owner_id_target_id_uniq',
  'site_asns_pkey',
  'site_asns_target_id_idx',
  'site_group__path_idx',
  'site_group_id_idx',
  'site_group_name_where_parent_id_null_uniq',
  'site_group_parent_id_idx',
  'site_group_parent_id_name_uniq',
  'site_group_parent_id_slug_uniq',
  'site_group_pkey',
  'site_group_slug_where_parent_id_null_uniq',
  'site_name_key',
  'site_pkey',
  'site_region_id_idx',
  'site_slug_key',
  'site_tenant_id_idx',
];

// the declarations plus what they cannot say (src/migrations/extra-schema.ts)
runSchemaHistory({ schema: 'dcim', models, migrations, releasedIndexes, extra: extraSchema });
