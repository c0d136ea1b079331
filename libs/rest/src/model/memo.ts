import type { WriteContext } from './model';

/** Runs a lookup once per request for the same key (a bulk write names the same objects again and again). */
export function memo<T>(wctx: WriteContext, key: string, fn: () => Promise<T>): Promise<T> {
  wctx.memo ??= new Map();
  let hit = wctx.memo.get(key) as Promise<T> | undefined;
  if (!hit) {
    hit = fn();
    wctx.memo.set(key, hit);
  }
  return hit;
}
