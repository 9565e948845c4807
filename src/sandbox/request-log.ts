/** The request log tests read back: one record per API request (not for controller writes). */

export interface RequestRecord {
  time: string;
  method: string;
  path: string;
  verb: string /* get list watch create update patch apply delete deletecollection */;
  group: string;
  version: string;
  resource: string /* plural, e.g. deployments */;
  kind?: string;
  namespace?: string;
  name?: string;
  fieldManager?: string;
  /** A list's or watch's selectors, as sent. */
  labelSelector?: string;
  fieldSelector?: string;
  userAgent?: string;
  /** When the request was done with (a write applied or refused); `time` is when it arrived. */
  endTime?: string;
  status: number;
  write: boolean;
  dryRun: boolean;
}

const WRITES = new Set(['create', 'update', 'patch', 'apply', 'delete', 'deletecollection']);

export function isWriteVerb(verb: string): boolean {
  return WRITES.has(verb);
}

export interface RequestLogOptions {
  /** Records kept; the oldest are dropped past this (a benchmark makes many). */
  capacity?: number;
}

export class RequestLog {
  private records: RequestRecord[] = [];
  private readonly capacity: number;

  constructor(options: RequestLogOptions = {}) {
    this.capacity = options.capacity ?? 100_000;
  }

  add(record: RequestRecord): void {
    this.records.push(record);
    // The oldest go in one cut once there are twice as many: cutting at every request past the
    // capacity moved the whole array each time (a benchmark's sandbox spent its CPU there).
    if (this.records.length >= 2 * this.capacity) this.records.splice(0, this.records.length - this.capacity);
  }

  /** Records whose fields equal every field given in `filter` (the newest `capacity` only). */
  find(filter: Partial<RequestRecord> = {}): RequestRecord[] {
    const kept = this.records.length > this.capacity ? this.records.slice(-this.capacity) : this.records;
    const entries = Object.entries(filter).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return [...kept];
    return kept.filter((r) => entries.every(([k, v]) => r[k as keyof RequestRecord] === v));
  }

  clear(): void {
    this.records = [];
  }
}
