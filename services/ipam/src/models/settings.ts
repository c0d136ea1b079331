import type { ServiceContext } from '@inventory/rest';

/** ipam's settings the model rules read: per service instance (`ctx.own`), from its validated configuration (config.ts). */
export interface AddressingSettings {
  /** NetBox's ENFORCE_GLOBAL_UNIQUE (default true). */
  enforceGlobalUnique: boolean;
}

const DEFAULTS: AddressingSettings = { enforceGlobalUnique: true };

/** The settings of the ipam instance serving `ctx` (NetBox's defaults for an instance made without them). */
export function addressingSettings(ctx: ServiceContext): AddressingSettings {
  return (ctx.own as AddressingSettings | undefined) ?? DEFAULTS;
}
