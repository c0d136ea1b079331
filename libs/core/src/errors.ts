/**
 * Typed errors. Code anywhere throws these; `errorHandler` (http.ts) is the one
 * place that turns them into NetBox-shaped responses.
 */
export type FieldErrors = Record<string, unknown>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message?: string,
  ) {
    super(message ?? (typeof body === 'object' && body && 'detail' in body ? String((body as { detail: unknown }).detail) : `HTTP ${status}`));
  }
}

/** 400 with `{"field": ["msg"]}` (or a list of such objects for bulk bodies). */
export class ValidationError extends HttpError {
  constructor(readonly errors: FieldErrors | FieldErrors[]) {
    super(400, errors, 'validation failed');
  }
  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** 400 with `{"detail": "..."}` (malformed JSON, aborted by a rule). */
export class BadRequest extends HttpError {
  constructor(detail: string) {
    super(400, { detail });
  }
}

export class PermissionDenied extends HttpError {
  constructor(detail = 'You do not have permission to perform this action.') {
    super(403, { detail });
  }
}

export class NotAuthenticated extends PermissionDenied {
  constructor(detail = 'Authentication credentials were not provided.') {
    super(detail);
  }
}

export class NotFound extends HttpError {
  constructor(detail = 'Not found.') {
    super(404, { detail });
  }
}

export class MethodNotAllowed extends HttpError {
  constructor(method: string) {
    super(405, { detail: `Method "${method}" not allowed.` });
  }
}

export class Conflict extends HttpError {
  constructor(detail: string) {
    super(409, { detail });
  }
}

export class PreconditionFailed extends HttpError {
  constructor(detail = 'The object has changed since the version given in If-Match.') {
    super(412, { detail });
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(limit: number) {
    super(413, { detail: `Request body too large (limit ${limit} bytes).` });
  }
}

export class UnprocessableEntity extends HttpError {
  constructor(detail: string) {
    super(422, { detail });
  }
}

/** 429 with the wait in Retry-After (DRF's throttling text). */
export class TooManyRequests extends HttpError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, { detail: `Request was throttled. Expected available in ${retryAfterSeconds} seconds.` });
  }
}

export class UnsupportedMediaType extends HttpError {
  constructor(type: string) {
    super(415, { detail: `Unsupported media type "${type}" in request.` });
  }
}

export class ServiceUnavailable extends HttpError {
  constructor(detail: string) {
    super(503, { detail });
  }
}
