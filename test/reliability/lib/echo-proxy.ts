/**
 * An HTTPS proxy in front of the sandbox API that behaves like an API server whose validation
 * echoes object content: any write to a chosen Secret is refused with a Status that quotes it. By
 * default a 422 Invalid with the request body quoted in the message and in a cause (as a real API
 * server does in "Invalid value: ..." messages); a target may answer otherwise (`refuse`), as an
 * admission webhook does with a 403 quoting one field. Everything else passes through unchanged,
 * watches included. The agent gets a kubeconfig pointing here, with the proxy's own CA.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { renderKubeconfig } from '../../../src/sandbox/kubeconfig.ts';
import type { KubeApi } from '../../../src/sandbox/server.ts';
import { createServingCertificate } from '../../../src/sandbox/tls.ts';

export interface EchoProxy {
  url: string;
  kubeconfig: string;
  /** How many 422s with echoed content were served. */
  echoed(): number;
  /** The request bodies quoted back in those 422s. */
  echoedBodies(): string[];
  close(): Promise<void>;
}

/** The refusal a target answers with: HTTP code, Status `reason` and `message`. */
export interface Refusal {
  code: number;
  reason: string;
  message: string;
}

export interface EchoTarget {
  namespace: string;
  name: string;
  /** The refusal of one write (method and body); default a 422 quoting the whole body. */
  refuse?: (method: string, body: string) => Refusal;
}

/** Proxies to `kube`; writes to each target Secret `namespace/name` are refused quoting their content. */
export async function startEchoProxy(kube: KubeApi, targets: EchoTarget | EchoTarget[]): Promise<EchoProxy> {
  const cert = await createServingCertificate(['127.0.0.1']);
  const upstream = new URL(kube.url);
  const list = Array.isArray(targets) ? targets : [targets];
  let echoed = 0;
  const bodies: string[] = [];
  const sockets = new Set<Socket>();

  const reject = (target: EchoTarget, req: IncomingMessage, res: ServerResponse, body: string) => {
    echoed += 1;
    if (bodies.length < 20) bodies.push(body);
    if (target.refuse) {
      const r = target.refuse(req.method ?? '', body);
      if (bodies.length < 20) bodies.push(r.message);
      res.writeHead(r.code, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: r.message,
          reason: r.reason,
          details: { name: target.name, kind: 'secrets' },
          code: r.code,
        }),
      );
      return;
    }
    const quoted = JSON.stringify(body);
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Secret "${target.name}" is invalid: data: Invalid value: ${quoted}: rejected by the reliability proxy (${req.method})`,
      reason: 'Invalid',
      details: {
        name: target.name,
        kind: 'Secret',
        causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${quoted}`, field: 'data' }],
      },
      code: 422,
    };
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status));
  };

  const server = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0];
      const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
      const text = body.toString('utf8');
      const target = list.find(
        (t) =>
          (isWrite && path === `/api/v1/namespaces/${t.namespace}/secrets/${t.name}`) ||
          (req.method === 'POST' &&
            path === `/api/v1/namespaces/${t.namespace}/secrets` &&
            text.includes(`"${t.name}"`)),
      );
      if (target) {
        reject(target, req, res, text);
        return;
      }
      const up = httpsRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
          ca: kube.caPem,
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      res.on('close', () => up.destroy());
      up.end(body);
    });
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    kubeconfig: renderKubeconfig(url, cert.caPem),
    echoed: () => echoed,
    echoedBodies: () => [...bodies],
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
