import { rir, role, routeTarget, vrf } from './organisation';
import { aggregate, prefix, ipRange, ipAddress } from './addressing';
import { asn, asnRange } from './asns';
import { vlanGroup, vlan } from './vlans';
import { fhrpGroup, fhrpGroupAssignment } from './fhrp';
import { service, serviceTemplate } from './services';
import { tunnelGroup, tunnel, tunnelTermination } from './tunnels';
import { ikeProposal, ikePolicy, ipsecProposal, ipsecPolicy, ipsecProfile } from './crypto';
import { l2vpn, l2vpnTermination } from './l2vpn';

export { rir, role, routeTarget, vrf, aggregate, prefix, ipRange, ipAddress, asn, asnRange, vlanGroup, vlan, fhrpGroup, fhrpGroupAssignment, service, serviceTemplate };
export { tunnelGroup, tunnel, tunnelTermination, ikeProposal, ikePolicy, ipsecProposal, ipsecPolicy, ipsecProfile, l2vpn, l2vpnTermination };

/** In dependency order (tables are created in this order). */
export const models = [rir, role, routeTarget, vrf, asn, asnRange, vlanGroup, vlan, aggregate, prefix, ipRange, ipAddress, fhrpGroup, fhrpGroupAssignment, serviceTemplate, service,
  // NetBox 3.7's vpn app, served by ipam under /api/vpn/ (decision 028)
  ikeProposal, ikePolicy, ipsecProposal, ipsecPolicy, ipsecProfile, tunnelGroup, tunnel, tunnelTermination, l2vpn, l2vpnTermination];
