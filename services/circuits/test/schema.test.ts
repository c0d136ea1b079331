import { runSchemaHistory } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';

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
  'circuit_pkey',
  'circuit_provider_account_id_cid_uniq',
  'circuit_provider_account_id_idx',
  'circuit_provider_id_cid_uniq',
  'circuit_provider_id_idx',
  'circuit_tenant_id_idx',
  'circuit_termination_circuit_id_idx',
  'circuit_termination_circuit_id_term_side_uniq',
  'circuit_termination_pkey',
  'circuit_termination_provider_network_id_idx',
  'circuit_termination_site_id_idx',
  'circuit_type_id_idx',
  'circuit_type_name_key',
  'circuit_type_pkey',
  'circuit_type_slug_key',
  'provider_account_pkey',
  'provider_account_provider_id_account_uniq',
  'provider_account_provider_id_idx',
  'provider_account_provider_id_name_where_name_not_blank_uniq',
  'provider_asns_owner_id_target_id_uniq',
  'provider_asns_pkey',
  'provider_asns_target_id_idx',
  'provider_name_key',
  'provider_network_pkey',
  'provider_network_provider_id_idx',
  'provider_network_provider_id_name_uniq',
  'provider_pkey',
  'provider_slug_key',
];

runSchemaHistory({ schema: 'circuits', models, migrations, releasedIndexes });
