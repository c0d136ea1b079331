import { tenantGroup, tenant } from './tenants';
import { contactGroup, contactRole, contact, contactAssignment } from './contacts';

export { tenantGroup, tenant, contactGroup, contactRole, contact, contactAssignment };

/** In dependency order (tables are created in this order). */
export const models = [tenantGroup, tenant, contactGroup, contactRole, contact, contactAssignment];
