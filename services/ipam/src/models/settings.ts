/**
 * ipam's settings the model rules read, set once when the service is
 * created from its validated configuration (config.ts).
 */
export const addressingSettings = {
  /** NetBox's ENFORCE_GLOBAL_UNIQUE (default true). */
  enforceGlobalUnique: true,
};
