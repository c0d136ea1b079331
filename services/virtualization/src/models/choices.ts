import type { Choice } from '@inventory/rest';

/** NetBox's ClusterStatusChoices (`virtualization.Cluster.status`, configurable). */
export const CLUSTER_STATUS: readonly Choice[] = [
  ['planned', 'Planned'],
  ['staging', 'Staging'],
  ['active', 'Active'],
  ['decommissioning', 'Decommissioning'],
  ['offline', 'Offline'],
];

/** NetBox's VirtualMachineStatusChoices (`virtualization.VirtualMachine.status`, configurable). */
export const VIRTUAL_MACHINE_STATUS: readonly Choice[] = [
  ['offline', 'Offline'],
  ['active', 'Active'],
  ['planned', 'Planned'],
  ['staged', 'Staged'],
  ['failed', 'Failed'],
  ['decommissioning', 'Decommissioning'],
];

/** NetBox's InterfaceModeChoices (802.1Q mode of a VM interface). */
export const INTERFACE_MODE: readonly Choice[] = [
  ['access', 'Access'],
  ['tagged', 'Tagged'],
  ['tagged-all', 'Tagged (All)'],
];
