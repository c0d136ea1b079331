import type { Request } from 'express';
import { formatParam, prefersHtml } from './negotiation';

/** Whether the client asked for the browsable API's HTML (DRF's negotiation: negotiation.ts). */
export function wantsHtml(req: Request): boolean {
  return prefersHtml(req.headers.accept, formatParam(req.originalUrl));
}
