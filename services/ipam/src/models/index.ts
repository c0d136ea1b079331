import { rir, role, routeTarget, vrf } from './organisation';
import { aggregate, prefix, ipRange, ipAddress } from './addressing';

export { rir, role, routeTarget, vrf, aggregate, prefix, ipRange, ipAddress };

/** In dependency order (tables are created in this order). */
export const models = [rir, role, routeTarget, vrf, aggregate, prefix, ipRange, ipAddress];
