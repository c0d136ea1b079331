import type { Request, Response } from 'express';
import { IDENTITY_HEADER } from '@inventory/auth';
import { ServiceUnavailable } from '@inventory/core';
import { clientIp, forwardedFor } from './forwarded';
import { locals, type IdentityMinter } from '../auth/identity';

/** As long as the proxy lets a service take (proxy.ts). */
const CALL_TIMEOUT_MS = 120_000;

/**
 * The headers a request the gateway makes itself on a client's behalf
 * carries, as the proxy would set them: the signed identity for that
 * service, the request id, the forwarded host and scheme (so the URLs in the
 * answer are the client's) and the client's address.
 */
export function onBehalfOf(req: Request, res: Response, minter: IdentityMinter, service: string, publicUrl: string | undefined): Record<string, string> {
  const f = forwardedFor(req, publicUrl);
  const { identity, requestId } = locals(res);
  return {
    [IDENTITY_HEADER]: minter.mint(identity, service),
    'x-request-id': requestId,
    'x-forwarded-host': f.host,
    'x-forwarded-proto': f.proto,
    'x-forwarded-for': f.for,
    'x-real-ip': clientIp(req),
  };
}

export interface ServiceAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** One request to a service, its answer read whole; a service that cannot be reached is a 503 naming it. */
export async function callService(service: string, url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<ServiceAnswer> {
  try {
    const answer = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    return { status: answer.status, headers: answer.headers, text: await answer.text() };
  } catch {
    throw new ServiceUnavailable(`Service ${service} is unavailable.`);
  }
}
