import { runSchemaHistory } from '@inventory/testkit';
import { models } from '../src/models';
import { migrations } from '../src/migrations';
import { extraSchema } from '../src/migrations/extra-schema';

/** The indexes of a database the previous release created (its frozen 0001_initial). */
const releasedIndexes = [
  '_tagged_item_pkey',
  'group_name_key',
  'group_pkey',
  'object_permission_groups_groups_uniq',
  'object_permission_groups_pkey',
  'object_permission_groups_target_id',
  'object_permission_pkey',
  'object_permission_users_pkey',
  'object_permission_users_target_id',
  'object_permission_users_users_uniq',
  'tagged_item_tag_id',
  'token_key_key',
  'token_pkey',
  'token_user_id',
  'user_config_pkey',
  'user_groups_groups_uniq',
  'user_groups_pkey',
  'user_groups_target_id',
  'user_pkey',
  'user_username_key',
  'users_tagged_uniq',
];

// the declarations plus what they cannot say (src/migrations/extra-schema.ts)
runSchemaHistory({ schema: 'users', models, migrations, releasedIndexes, extra: extraSchema });
