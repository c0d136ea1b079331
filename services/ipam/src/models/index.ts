import { rir, role, routeTarget, vrf } from './organisation';

export { rir, role, routeTarget, vrf };

/** In dependency order (tables are created in this order). */
export const models = [rir, role, routeTarget, vrf];
