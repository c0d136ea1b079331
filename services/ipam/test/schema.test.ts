import { runSchemaHistory } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';
import { extraSchema } from '../src/migrations/extra-schema';

/** The indexes a database of the first release has (its frozen 0001_initial). */
const releasedIndexes = [
  "_idempotency_key_created_idx",
  "_idempotency_key_pkey",
  "_outbox_id_uniq",
  "_outbox_pkey",
  "_outbox_request_id_idx",
  "_outbox_sent_at_idx",
  "_outbox_unsent_idx",
  "_processed_event_pkey",
  "_processed_event_processed_at_idx",
  "_tagged_item_content_type_object_id_tag_id_uniq",
  "_tagged_item_pkey",
  "_tagged_item_tag_id_idx",
  "rir_name_key",
  "rir_pkey",
  "rir_slug_key",
  "role_name_key",
  "role_pkey",
  "role_slug_key",
  "route_target_name_key",
  "route_target_pkey",
  "route_target_tenant_id_idx",
  "vrf_export_targets_owner_id_target_id_uniq",
  "vrf_export_targets_pkey",
  "vrf_export_targets_target_id_idx",
  "vrf_import_targets_owner_id_target_id_uniq",
  "vrf_import_targets_pkey",
  "vrf_import_targets_target_id_idx",
  "vrf_pkey",
  "vrf_rd_key",
  "vrf_tenant_id_idx",
];

runSchemaHistory({ schema: 'ipam', models, migrations, releasedIndexes, extra: extraSchema });
