import { runSchemaHistory } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';
import { extraSchema } from '../src/migrations/extra-schema';

/** The indexes of a database the previous release created (its frozen 0001_initial). */
const releasedIndexes = [
  '_tagged_item_pkey',
  'custom_field_choice_set_id',
  'custom_field_choice_set_name_key',
  'custom_field_choice_set_pkey',
  'custom_field_name_key',
  'custom_field_pkey',
  'extras_tagged_uniq',
  'tag_name_key',
  'tag_pkey',
  'tag_slug_key',
  'tagged_item_tag_id',
];

// the declarations plus what they cannot say (src/migrations/extra-schema.ts)
runSchemaHistory({ schema: 'extras', models, migrations, releasedIndexes, extra: extraSchema });
