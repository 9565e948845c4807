/**
 * Kubernetes failures → MooringError. Every message starts with the object id. The server's own
 * text is kept only where the API server builds it from names (404, 403, 409); for 400 and 422 it
 * may echo the object's content (a Secret value in an "Invalid value: ..." cause), so only field
 * paths and reasons survive. An admission refusal (a webhook's, a ValidatingAdmissionPolicy's)
 * comes as a 403 or any code the webhook picks, and its reason is the webhook's own text, which may
 * quote any field of the object (Gatekeeper does: `env value "<the value>" is not allowed`): of
 * it, only the part naming who refused is kept. Every message is also scrubbed of the known secret
 * values wherever the agent emits it (the redactor, redact.ts), which covers text quoted under
 * names this file cannot foresee; it cannot cover a value the agent does not know, such as the
 * Postgres password the applier generates, hence the cut. The client's exception is never kept
 * as `cause`: its message embeds the whole response body.
 */
import { type ErrorCode, MooringError } from '../errors.ts';

/** One cause of a 422, reduced to what is safe to show. */
export interface SafeCause {
  field?: string;
  reason?: string;
  /** The cause says the field may not change once set. */
  immutable: boolean;
}

interface StatusLike {
  reason?: unknown;
  message?: unknown;
  details?: { causes?: unknown; retryAfterSeconds?: unknown };
}

const IMMUTABLE_TEXT = [
  /field is immutable/i,
  /may not change once set/i,
  /updates to \w+ spec for fields other than/i,
  /is immutable/i,
];

/** The HTTP status of a `KubeApiError` (duck-typed: it has a numeric `code` and a `body`). */
export function httpStatusOf(err: unknown): number | undefined {
  if (
    typeof err === 'object' &&
    err !== null &&
    'body' in err &&
    typeof (err as { code?: unknown }).code === 'number'
  ) {
    return (err as unknown as { code: number }).code;
  }
  return undefined;
}

function statusBody(err: unknown): StatusLike {
  const body = (err as { body?: unknown }).body;
  if (typeof body === 'object' && body !== null) return body as StatusLike;
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'object' && parsed !== null) return parsed as StatusLike;
    } catch {
      // not JSON: nothing usable (and nothing echoed)
    }
  }
  return {};
}

/** The causes of a Status, without their messages (which may echo values). */
export function safeCauses(err: unknown): SafeCause[] {
  const causes = statusBody(err).details?.causes;
  if (!Array.isArray(causes)) return [];
  return causes.map((c: { field?: unknown; reason?: unknown; message?: unknown }) => {
    const out: SafeCause = {
      immutable: typeof c.message === 'string' && IMMUTABLE_TEXT.some((re) => re.test(c.message as string)),
    };
    if (typeof c.field === 'string') out.field = c.field;
    if (typeof c.reason === 'string') out.reason = c.reason;
    return out;
  });
}

/** The fields a 422 names as immutable; empty when the failure is not about immutability. */
export function immutableFields(err: unknown): string[] {
  if (httpStatusOf(err) !== 422) return [];
  return safeCauses(err)
    .filter((c) => c.immutable)
    .map((c) => c.field ?? '(unnamed field)');
}

function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      /^(E[A-Z]+|UND_ERR_\w+|CERT_\w+|\w*CERT\w*|DEPTH_ZERO\w*|ERR_TLS\w*)$/.test(code)
    ) {
      return code;
    }
    e = (e as { cause?: unknown }).cause;
  }
  if (err instanceof TypeError && /fetch failed/.test(err.message)) return 'FETCH_FAILED';
  return undefined;
}

/**
 * The part of an admission refusal that names who refused: `admission webhook "x" denied the
 * request`, `... ValidatingAdmissionPolicy 'p' with binding 'b' denied request`. What follows is
 * the webhook's or the policy's free text.
 */
const ADMISSION_DENIAL = /^(.*?\bdenied (?:the )?request)\b/s;

/** What an admission refusal's message becomes: who refused, not why. */
export const ADMISSION_REASON_WITHHELD =
  "(the admission controller's reason is withheld: it may quote the object's content; see its own log or the API server's audit log)";

/** The API server's message, up to 300 characters; of an admission refusal, who refused only. */
export function serverText(err: unknown): string {
  const m = statusBody(err).message;
  if (typeof m !== 'string') return '';
  const denial = ADMISSION_DENIAL.exec(m);
  if (denial?.[1] !== undefined) return `${denial[1].slice(0, 300)} ${ADMISSION_REASON_WITHHELD}`;
  return m.slice(0, 300);
}

/**
 * Maps any error from a Kubernetes call about `id` (`Kind/namespace/name`) to a MooringError whose
 * message starts with the id. `verb` is what was tried (apply, list, delete, create).
 */
export function kubeError(err: unknown, id: string, verb: string): MooringError {
  if (err instanceof MooringError) return err;
  const status = httpStatusOf(err);
  if (status === undefined) {
    const net = networkCode(err);
    if (net) {
      return new MooringError(
        'MOORING_E_KUBE_UNREACHABLE',
        `${id}: ${verb} failed: Kubernetes API unreachable (${net})`,
        {
          details: { id, verb, network: net },
        },
      );
    }
    const text = err instanceof Error ? err.message.split('\n')[0]?.slice(0, 200) : String(err).slice(0, 200);
    return new MooringError('MOORING_E_INTERNAL', `${id}: ${verb} failed: ${text}`, {
      details: { id, verb },
    });
  }
  const body = statusBody(err);
  const reason = typeof body.reason === 'string' ? body.reason : undefined;
  const details: Record<string, unknown> = { id, verb, status };
  if (reason) details.reason = reason;
  let code: ErrorCode;
  let text: string;
  let retryAfterMs: number | undefined;
  if (status === 422) {
    const causes = safeCauses(err);
    details.fields = causes.map((c) => c.field).filter((f) => f !== undefined);
    const immutable = causes.filter((c) => c.immutable).map((c) => c.field ?? '(unnamed field)');
    if (immutable.length > 0) details.immutableFields = immutable;
    code = 'MOORING_E_KUBE_INVALID';
    const listed = causes
      .map((c) => `${c.field ?? '(object)'}${c.reason ? ` (${c.reason})` : ''}`)
      .join(', ');
    text = `rejected as invalid (422)${listed ? `: ${listed}` : ''}`;
  } else if (status === 400) {
    code = 'MOORING_E_KUBE_REQUEST';
    text = `bad request (400${reason ? ` ${reason}` : ''})`;
  } else if (status === 401 || status === 403) {
    code = 'MOORING_E_KUBE_FORBIDDEN';
    text = `refused (${status}): ${serverText(err)}`;
  } else if (status === 404) {
    code = 'MOORING_E_KUBE_NOT_FOUND';
    text = `not found (404): ${serverText(err)}`;
  } else if (status === 409) {
    code = 'MOORING_E_KUBE_CONFLICT';
    text = `conflict (409${reason ? ` ${reason}` : ''}): ${serverText(err)}`;
  } else if (status === 429 || status >= 500) {
    code = 'MOORING_E_KUBE_SERVER';
    text = `server answered ${status}${reason ? ` ${reason}` : ''}`;
    const after = body.details?.retryAfterSeconds;
    if (typeof after === 'number' && after > 0) retryAfterMs = after * 1000;
  } else {
    code = 'MOORING_E_KUBE_REQUEST';
    text = `request rejected (${status}${reason ? ` ${reason}` : ''})`;
  }
  const options: { details: Record<string, unknown>; retryAfterMs?: number } = { details };
  if (retryAfterMs !== undefined) options.retryAfterMs = retryAfterMs;
  return new MooringError(code, `${id}: ${verb} ${text}`, options);
}

/** True for errors that concern the whole API (not one object): stop the batch, do not go on. */
export function isApiWide(err: MooringError): boolean {
  return (
    err.code === 'MOORING_E_KUBE_UNREACHABLE' ||
    err.code === 'MOORING_E_KUBE_SERVER' ||
    err.code === 'MOORING_E_KUBE_FORBIDDEN' ||
    err.code === 'MOORING_E_PROXY_REFUSED' ||
    err.code === 'MOORING_E_INTERNAL'
  );
}
