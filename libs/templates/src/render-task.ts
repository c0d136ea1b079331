/** What the render pool (render-pool.ts) and its workers (render-worker.ts) exchange. */
import type { ExportObjects } from './queryset';

export type RenderTask =
  /** A config template (render-config, a config template's `render/`). */
  | { kind: 'jinja'; code: string; context: Record<string, unknown>; environment?: unknown }
  /** An export template over a list's objects (`queryset`). */
  | { kind: 'export'; code: string; objects: ExportObjects }
  /** A webhook's URL, headers or body. */
  | { kind: 'webhook'; template: string; context: Record<string, unknown> };

export interface RenderLimits {
  /** Wall time of the render on its worker (the worker does nothing else meanwhile, so it is the render's CPU time on an idle core). */
  timeMs: number;
  /** Characters of output. */
  outputChars: number;
}

export const DEFAULT_RENDER_LIMITS: RenderLimits = { timeMs: 2000, outputChars: 32 * 1024 * 1024 };

/** A render stopped by a limit: `limit` says which, the message names it and its value. */
export class TemplateLimitError extends Error {
  override name = 'TemplateLimitError';
  constructor(
    readonly limit: 'time' | 'size',
    message: string,
  ) {
    super(message);
  }
}

/** What a worker answers: the output, or the error it threw (by class name, so the caller can rebuild it). */
export type RenderReply = { id: number; ok: true; out: string } | { id: number; ok: false; name: string; message: string; line: number | null };
