/**
 * undici's dispatchers, loaded without undici's index. `import 'undici'` evaluates all of undici
 * (fetch, WebSocket, EventSource, caches, mocks) where the agent needs three classes, at a cost in
 * resident memory and start-up time (bench/README.md, "Measured decisions"). Each binding below is the very class the index exports, typed by undici's
 * own declarations; test/lean/lean-imports.test.ts checks that identity, so an undici upgrade that
 * moves a file fails there and not in a cluster.
 */
import { createRequire } from 'node:module';
import type * as undici from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof undici.Agent;
export const Pool = require('undici/lib/dispatcher/pool.js') as typeof undici.Pool;
export const ProxyAgent = require('undici/lib/dispatcher/proxy-agent.js') as typeof undici.ProxyAgent;

// ProxyAgent opens its CONNECT tunnel with `Dispatcher#connect`, a method undici's index installs
// on every dispatcher: installed here the same way (one small module), or every proxied request
// fails with "connect is not a function" outside a process that loaded the index.
const DispatcherBase = require('undici/lib/dispatcher/dispatcher.js') as {
  prototype: Record<string, unknown>;
};
DispatcherBase.prototype.connect ??= require('undici/lib/api/api-connect.js');
export type Agent = undici.Agent;
export type Pool = undici.Pool;
export type ProxyAgent = undici.ProxyAgent;
