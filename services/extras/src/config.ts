import * as path from 'node:path';
import { Joi, baseConfigSchema, type BaseConfig } from '@inventory/core';

/** Where image attachments' files live and how large one may be (docs/settings.md). */
export interface MediaSettings {
  /** Folder of uploaded files (NetBox's MEDIA_ROOT): image attachments go in its `image-attachments/`. */
  MEDIA_ROOT: string;
  /** Largest image accepted, in bytes (a larger upload is a 400). */
  MAX_IMAGE_SIZE: number;
}

/**
 * What data sources may read (docs/settings.md, decision 029): the folders
 * local sources may name, the URL schemes git sources may clone, and the
 * bounds of one sync. Raw strings as the environment gives them;
 * `dataSourceSettings` turns them into a checked `DataSourceSettings`.
 */
export interface DataSourceEnv {
  /** Comma-separated absolute folders a local data source may read (below); empty: local sources are refused. */
  DATA_SOURCE_LOCAL_ROOTS: string;
  /** Comma-separated URL schemes a git data source may clone (`https,http`). */
  DATA_SOURCE_GIT_SCHEMES: string;
  /** Largest file a sync reads, in bytes (a larger one fails the sync). */
  DATA_SOURCE_MAX_FILE_SIZE: number;
  /** Most files one sync reads (more fail the sync). */
  DATA_SOURCE_MAX_FILES: number;
  /** How long a `git clone` may take, in seconds. */
  DATA_SOURCE_GIT_TIMEOUT: number;
}

/** The data-source settings, parsed. */
export interface DataSourceSettings {
  localRoots: string[];
  gitSchemes: string[];
  maxFileSize: number;
  maxFiles: number;
  gitTimeoutMs: number;
}

/** What the extras service reads from the environment (once, at start, with readConfig). */
export interface ExtrasConfig extends BaseConfig, MediaSettings, DataSourceEnv {}

export const MEDIA_DEFAULTS: MediaSettings = {
  // relative to the working directory; `npm start` puts it under its data directory
  MEDIA_ROOT: 'media',
  MAX_IMAGE_SIZE: 5 * 1024 * 1024,
};

export const DATA_SOURCE_DEFAULTS: DataSourceEnv = {
  DATA_SOURCE_LOCAL_ROOTS: '',
  DATA_SOURCE_GIT_SCHEMES: 'https,http',
  DATA_SOURCE_MAX_FILE_SIZE: 10 * 1024 * 1024,
  DATA_SOURCE_MAX_FILES: 10000,
  DATA_SOURCE_GIT_TIMEOUT: 120,
};

const GIT_SCHEMES = ['https', 'http', 'ssh', 'git', 'file'];

/** A comma-separated list of absolute, normalised folders (each entry checked). */
const rootList = Joi.string()
  .allow('')
  .custom((value: string, helpers) => {
    for (const entry of splitList(value)) if (!path.isAbsolute(entry)) return helpers.message({ custom: `DATA_SOURCE_LOCAL_ROOTS: "${entry}" is not an absolute path` });
    return value;
  });

const schemeList = Joi.string()
  .allow('')
  .custom((value: string, helpers) => {
    for (const entry of splitList(value)) if (!GIT_SCHEMES.includes(entry.toLowerCase())) return helpers.message({ custom: `DATA_SOURCE_GIT_SCHEMES: "${entry}" is not one of ${GIT_SCHEMES.join(', ')}` });
    return value;
  });

export const extrasConfig = Joi.object<ExtrasConfig>({
  ...baseConfigSchema,
  MEDIA_ROOT: Joi.string().min(1).default(MEDIA_DEFAULTS.MEDIA_ROOT),
  MAX_IMAGE_SIZE: Joi.number().integer().min(1024).default(MEDIA_DEFAULTS.MAX_IMAGE_SIZE),
  DATA_SOURCE_LOCAL_ROOTS: rootList.default(DATA_SOURCE_DEFAULTS.DATA_SOURCE_LOCAL_ROOTS),
  DATA_SOURCE_GIT_SCHEMES: schemeList.default(DATA_SOURCE_DEFAULTS.DATA_SOURCE_GIT_SCHEMES),
  DATA_SOURCE_MAX_FILE_SIZE: Joi.number().integer().min(1).default(DATA_SOURCE_DEFAULTS.DATA_SOURCE_MAX_FILE_SIZE),
  DATA_SOURCE_MAX_FILES: Joi.number().integer().min(1).default(DATA_SOURCE_DEFAULTS.DATA_SOURCE_MAX_FILES),
  DATA_SOURCE_GIT_TIMEOUT: Joi.number().integer().min(1).default(DATA_SOURCE_DEFAULTS.DATA_SOURCE_GIT_TIMEOUT),
});

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The settings of a config that may lack them (a plain BaseConfig, as the test kit builds): defaults then. */
export function mediaSettings(config: BaseConfig & Partial<MediaSettings>): MediaSettings {
  return { MEDIA_ROOT: config.MEDIA_ROOT ?? MEDIA_DEFAULTS.MEDIA_ROOT, MAX_IMAGE_SIZE: config.MAX_IMAGE_SIZE ?? MEDIA_DEFAULTS.MAX_IMAGE_SIZE };
}

/**
 * The data-source settings of a config (defaults for what it lacks).
 * Validated again here, for configs that did not come through
 * `extrasConfig` (the test kit's): a bad value throws at start.
 */
export function dataSourceSettings(config: BaseConfig & Partial<DataSourceEnv>): DataSourceSettings {
  const env = { ...DATA_SOURCE_DEFAULTS, ...Object.fromEntries(Object.entries(config).filter(([k, v]) => k.startsWith('DATA_SOURCE_') && v !== undefined)) } as DataSourceEnv;
  const checked = Joi.object({
    DATA_SOURCE_LOCAL_ROOTS: rootList,
    DATA_SOURCE_GIT_SCHEMES: schemeList,
    DATA_SOURCE_MAX_FILE_SIZE: Joi.number().integer().min(1),
    DATA_SOURCE_MAX_FILES: Joi.number().integer().min(1),
    DATA_SOURCE_GIT_TIMEOUT: Joi.number().integer().min(1),
  }).validate(env, { allowUnknown: true, convert: true });
  if (checked.error) throw new Error(checked.error.message);
  const v = checked.value as DataSourceEnv;
  return {
    localRoots: splitList(v.DATA_SOURCE_LOCAL_ROOTS).map((r) => path.resolve(r)),
    gitSchemes: splitList(v.DATA_SOURCE_GIT_SCHEMES).map((s) => s.toLowerCase()),
    maxFileSize: v.DATA_SOURCE_MAX_FILE_SIZE,
    maxFiles: v.DATA_SOURCE_MAX_FILES,
    gitTimeoutMs: v.DATA_SOURCE_GIT_TIMEOUT * 1000,
  };
}
