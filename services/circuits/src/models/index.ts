import { provider } from './provider';
import { providerAccount } from './providerAccount';
import { providerNetwork } from './providerNetwork';
import { circuitType } from './circuitType';
import { circuit } from './circuit';
import { circuitTermination } from './circuitTermination';

export { provider, providerAccount, providerNetwork, circuitType, circuit, circuitTermination };
export { CIRCUIT_STATUS, TERMINATION_SIDE } from './choices';

/** In dependency order (tables are created in this order). */
export const models = [provider, providerAccount, providerNetwork, circuitType, circuit, circuitTermination];
