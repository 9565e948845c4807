import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './errors.ts';

/** Request bodies larger than this get 413 (1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Request bodies whose objects and arrays nest deeper than this get 422 before they are parsed (the
 * body's own object is level 1). The deepest real body is about 11 levels
 * (`source_config.resource_spec.volumes[].projected.sources[].configMap.items[]`); far deeper, the
 * recursive walks of a parsed body (`JSON.stringify` when it is stored and answered, the revision
 * comparison) run out of stack: a few thousand levels answered 500.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Reads a JSON body, refusing more than `limitBytes`: a declared Content-Length over the limit is
 * refused before reading; a streamed body is refused as soon as it crosses the limit, and reading
 * stops there (the connection is closed after the answer, so the rest is never buffered). A body
 * nested deeper than `maxDepth` is refused (422) from its text, before it is parsed.
 */
export async function readJsonBody(
  req: IncomingMessage,
  limitBytes = MAX_BODY_BYTES,
  maxDepth = MAX_BODY_DEPTH,
): Promise<unknown> {
  const type = req.headers['content-type'];
  if (type !== undefined && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new HttpError(415, 'Content-Type must be application/json');
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);

  const text = (await readLimited(req, limitBytes)).toString('utf8');
  if (text.trim() === '') {
    throw new HttpError(422, [{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  }
  if (jsonNestedDeeperThan(text, maxDepth)) {
    throw new HttpError(422, [
      { loc: ['body'], msg: `JSON nested deeper than ${maxDepth} levels`, type: 'json_too_deep' },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(422, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
}

/**
 * True when the objects and arrays of JSON `text` nest deeper than `max` levels: one pass over the
 * text, counting brackets outside strings, stopping at the first bracket past the limit. Exact for
 * valid JSON; for text that is not JSON the answer does not matter (JSON.parse refuses it next).
 */
export function jsonNestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Collects the body with listeners rather than an async iterator: leaving an iterator early
 * destroys the request and its socket, and then the 413 could not be sent. Here reading just
 * stops (the stream is paused) and the answer carries `Connection: close`.
 */
function readLimited(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onFail);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    // A client that goes away mid-body made a bad request, not a server fault.
    const onFail = () => {
      cleanup();
      reject(new HttpError(400, 'request body was not received completely'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onFail);
  });
}

function tooLarge(limitBytes: number): HttpError {
  return new HttpError(413, `request body exceeds ${limitBytes} bytes`, { connection: 'close' });
}

/**
 * An answer body that is JSON already (the UTF-8 bytes of stored documents, see `StoredJson`):
 * sent as it is, where any other body is serialised with `JSON.stringify`.
 */
export class JsonBytes {
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
}

/** Writes a JSON answer (or an empty one for 204). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const payload = body instanceof JsonBytes ? body.bytes : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength,
    ...headers,
  });
  res.end(payload);
}
