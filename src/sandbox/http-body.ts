/** Reading request bodies and writing JSON answers, as the API server negotiates them. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { decodeProtobuf, PROTOBUF } from './protobuf.ts';
import { ApiError, badRequest } from './status.ts';

export function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function readBody(req: IncomingMessage): Promise<string> {
  return readBytes(req).then((b) => b.toString('utf8'));
}

export function readBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (${(error as Error).message})`,
    );
  }
}

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

const UNSUPPORTED = new ApiError(
  415,
  'UnsupportedMediaType',
  'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
);

/** A custom resource has no protobuf form: the API server then lists JSON and YAML only. */
const NO_PROTOBUF = new ApiError(
  415,
  'UnsupportedMediaType',
  'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
);

/** A create/update/delete body as an object: JSON, YAML, or protobuf for the built-in kinds. */
export function decodeBody(bytes: Buffer, req: IncomingMessage): unknown {
  const type = mediaType(req.headers['content-type']);
  if (type === PROTOBUF) {
    const decoded = decodeProtobuf(bytes);
    if (decoded === undefined) throw NO_PROTOBUF;
    return decoded;
  }
  if (type === 'application/cbor') throw UNSUPPORTED;
  if (type === 'application/yaml') {
    try {
      return bytes.length === 0 ? undefined : parseYaml(bytes.toString('utf8'));
    } catch (error) {
      throw badRequest(`error converting YAML to JSON: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  return parseJsonBody(bytes.toString('utf8'));
}
