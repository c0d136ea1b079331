import { Joi, baseConfigSchema, type BaseConfig } from '@inventory/core';

/** Where image attachments' files live and how large one may be (docs/settings.md). */
export interface MediaSettings {
  /** Folder of uploaded files (NetBox's MEDIA_ROOT): image attachments go in its `image-attachments/`. */
  MEDIA_ROOT: string;
  /** Largest image accepted, in bytes (a larger upload is a 400). */
  MAX_IMAGE_SIZE: number;
}

/** What the extras service reads from the environment (once, at start, with readConfig). */
export interface ExtrasConfig extends BaseConfig, MediaSettings {}

export const MEDIA_DEFAULTS: MediaSettings = {
  // relative to the working directory; `npm start` puts it under its data directory
  MEDIA_ROOT: 'media',
  MAX_IMAGE_SIZE: 5 * 1024 * 1024,
};

export const extrasConfig = Joi.object<ExtrasConfig>({
  ...baseConfigSchema,
  MEDIA_ROOT: Joi.string().min(1).default(MEDIA_DEFAULTS.MEDIA_ROOT),
  MAX_IMAGE_SIZE: Joi.number().integer().min(1024).default(MEDIA_DEFAULTS.MAX_IMAGE_SIZE),
});

/** The settings of a config that may lack them (a plain BaseConfig, as the test kit builds): defaults then. */
export function mediaSettings(config: BaseConfig & Partial<MediaSettings>): MediaSettings {
  return { MEDIA_ROOT: config.MEDIA_ROOT ?? MEDIA_DEFAULTS.MEDIA_ROOT, MAX_IMAGE_SIZE: config.MAX_IMAGE_SIZE ?? MEDIA_DEFAULTS.MAX_IMAGE_SIZE };
}
