import Joi from 'joi';
import { baseConfigSchema, type BaseConfig } from '@inventory/core';

/** ipam's settings beyond every service's. */
export interface IpamConfig extends BaseConfig {
  /** NetBox's ENFORCE_GLOBAL_UNIQUE: prefixes and IP addresses without a VRF are unique (default true, as in 3.7). */
  ENFORCE_GLOBAL_UNIQUE: boolean;
}

export const ipamConfig = Joi.object<IpamConfig>({
  ...baseConfigSchema,
  ENFORCE_GLOBAL_UNIQUE: Joi.boolean().truthy('1', 'yes', 'on').falsy('0', 'no', 'off').default(true),
});
