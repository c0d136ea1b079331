import { provider } from './provider';
import { providerAccount } from './provider-account';
import { providerNetwork } from './provider-network';
import { circuitType } from './circuit-type';
import { circuit } from './circuit';
import { circuitTermination } from './circuit-termination';

export { provider, providerAccount, providerNetwork, circuitType, circuit, circuitTermination };
export { CIRCUIT_STATUS, TERMINATION_SIDE } from './choices';

/** In dependency order (tables are created in this order). */
export const models = [provider, providerAccount, providerNetwork, circuitType, circuit, circuitTermination];
