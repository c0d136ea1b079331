import { group, user } from './users';
import { token } from './tokens';
import { objectPermission } from './permissions';

export { group, user, token, objectPermission };
export { DASHBOARD_TABLE, USER_GROUPS_TABLE, USER_CONFIG_TABLE } from './users';
export { PERMISSION_GROUPS_TABLE, PERMISSION_USERS_TABLE } from './permissions';
export { generateKey, mayGrantTokens, TOKEN_KEY_LENGTH, GRANT_DENIED } from './tokens';

/** In dependency order (tables are created in this order). */
export const models = [group, user, token, objectPermission];
