/**
 * Field ownership of every write other than apply (create, update/PUT, merge, JSON and strategic
 * merge patches), as the apiserver's field manager records it. Pure: time is passed in.
 */
import { ApplyError } from './errors.ts';
import { capUpdateManagers, decodeManagedFields, type Managers, managerId } from './managed-fields.ts';
import { body, settle, toKubeTime, typeContext, withManagedFields } from './object-meta.ts';
import type { KubeObject } from './types.ts';
import { copyJson, isObj } from './typed.ts';
import { recordWrite } from './updater.ts';

function isResetRequest(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  return mf.length === 1 && isObj(mf[0]) && Object.keys(mf[0]).length === 0;
}

/**
 * Any write other than apply (create, update/PUT, merge/JSON/strategic patch): the fields whose
 * value the write set or changed become owned by `manager` (operation Update) and are taken from
 * other managers; fields it removed are released by everyone. Like the apiserver it never fails:
 * if the new object cannot be typed, the live managedFields are kept. An update that sends
 * `managedFields: []` or `[{}]` clears them; other sent managedFields replace the live ones.
 */
export function recordUpdate(args: {
  live: KubeObject | undefined;
  updated: KubeObject;
  manager: string;
  now: string;
  subresource?: string;
}): KubeObject {
  const { live, updated } = args;
  const subresource = args.subresource || undefined;
  const sent = updated.metadata?.managedFields as unknown;
  const updatedBody = settle(body(updated), live ? body(live) : undefined, updated.kind, subresource);
  try {
    const now = toKubeTime(args.now);
    let managers: Managers;
    if (subresource === undefined && isResetRequest(sent)) managers = new Map();
    else {
      let fromRequest: Managers | undefined;
      if (subresource === undefined && sent !== undefined) {
        try {
          fromRequest = decodeManagedFields(sent);
        } catch {
          fromRequest = undefined;
        }
      }
      managers =
        fromRequest && fromRequest.size > 0
          ? fromRequest
          : decodeManagedFields(live?.metadata?.managedFields);
    }
    // An existing object nobody tracks stays untracked (skipNonApplied).
    if (live && managers.size === 0) return withManagedFields(updatedBody, managers);
    const ctx = typeContext(updated.apiVersion, updated.kind, subresource);
    const manager = args.manager || 'unknown';
    const who = { manager, apiVersion: updated.apiVersion, subresource };
    const id = managerId(manager, 'Update', updated.apiVersion, subresource);
    const liveBody = live ? body(live) : {};
    const next = capUpdateManagers(recordWrite(liveBody, updatedBody, managers, id, who, now, ctx));
    return withManagedFields(updatedBody, next);
  } catch (err) {
    if (!(err instanceof ApplyError)) throw err;
    const fallback = live ? decodeSafe(live.metadata?.managedFields) : new Map();
    return withManagedFields(updatedBody, fallback);
  }
}

function decodeSafe(mf: unknown): Managers {
  try {
    return decodeManagedFields(mf);
  } catch {
    return new Map();
  }
}

/** A deep copy of an object (JSON data), for callers that must not share structure. */
export function cloneObject<T>(obj: T): T {
  return copyJson(obj) as T;
}
