import { rir, role, routeTarget, vrf } from './organisation';
import { aggregate, prefix, ipRange, ipAddress } from './addressing';
import { asn, asnRange } from './asns';
import { vlanGroup, vlan } from './vlans';
import { fhrpGroup, fhrpGroupAssignment } from './fhrp';
import { service, serviceTemplate } from './services';

export { rir, role, routeTarget, vrf, aggregate, prefix, ipRange, ipAddress, asn, asnRange, vlanGroup, vlan, fhrpGroup, fhrpGroupAssignment, service, serviceTemplate };

/** In dependency order (tables are created in this order). */
export const models = [rir, role, routeTarget, vrf, asn, asnRange, vlanGroup, vlan, aggregate, prefix, ipRange, ipAddress, fhrpGroup, fhrpGroupAssignment, serviceTemplate, service];
