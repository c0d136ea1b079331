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
  'webhook_delivery_pkey',
  'webhook_delivery_webhook_id_event_id_uniq',
  'webhook_delivery_webhook_id_idx',
  'webhook_name_key',
  'webhook_pkey',
];

runSchemaHistory({ schema: 'webhooks', models, migrations, releasedIndexes, extra: extraSchema });
