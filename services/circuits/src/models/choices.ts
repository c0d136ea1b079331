import type { Choice } from '@inventory/rest';

/** NetBox's CircuitStatusChoices (configurable in NetBox; the stock values). */
export const CIRCUIT_STATUS: readonly Choice[] = [
  ['planned', 'Planned'],
  ['provisioning', 'Provisioning'],
  ['active', 'Active'],
  ['offline', 'Offline'],
  ['deprovisioning', 'Deprovisioning'],
  ['decommissioned', 'Decommissioned'],
];

/** NetBox's CircuitTerminationSideChoices: rendered as the bare value (not a ChoiceField). */
export const TERMINATION_SIDE: readonly Choice[] = [
  ['A', 'A'],
  ['Z', 'Z'],
];
