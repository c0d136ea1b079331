import type { CustomFieldDef } from './customfields';

export interface NestedTag {
  id: number;
  url: string;
  display: string;
  name: string;
  slug: string;
  color: string;
}

export type RefResult = { id: number } | { error: string };

/**
 * What every service needs from extras: custom field definitions and tags.
 * The extras service implements it locally; the others over HTTP, cached.
 */
export interface ExtrasApi {
  customFields(contentType: string): Promise<CustomFieldDef[]>;
  /** Resolve tag references (ids or {name}/{slug} sets) written on an object of `contentType`. */
  resolveTags(refs: unknown[], contentType: string): Promise<RefResult[]>;
  /** Nested tags by id, urls under `base`; `projectionRead`: the caller read this service's projection of tags already (a list page's statement). */
  tags(ids: number[], base: string, projectionRead?: boolean): Promise<Map<number, NestedTag>>;
  /** Tag ids by slug, for the `tag` filter. */
  tagIdsBySlug(slugs: string[]): Promise<Map<string, number>>;
  /** Drop cached definitions (called when extras announces a change). */
  invalidate(): void;
}
