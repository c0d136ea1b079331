import { clusterType, clusterGroup, cluster } from './clusters';
import { virtualMachine } from './virtual-machines';
import { vmInterface, virtualDisk } from './components';

export { clusterType, clusterGroup, cluster, virtualMachine, vmInterface, virtualDisk };
export { CLUSTER_STATUS, VIRTUAL_MACHINE_STATUS, INTERFACE_MODE } from './choices';
export { normalizeMac } from './mac';

/** In dependency order (tables are created in this order). */
export const models = [clusterType, clusterGroup, cluster, virtualMachine, vmInterface, virtualDisk];
