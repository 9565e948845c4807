/**
 * apimachinery's `duration.HumanDuration`, which kube-apiserver's printers use for every AGE, LAST
 * SEEN and "(5m ago)" cell: two significant units while they matter (`5m3s`, `3d4h`), one after.
 */

/** `d` milliseconds as HumanDuration words it. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to two seconds in the future count as now (clock skew between machines).
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** The time since an RFC 3339 timestamp, or `<unknown>` for none, as the printers' translateTimestampSince. */
export function since(timestamp: unknown, now: Date): string {
  const at = typeof timestamp === 'string' && timestamp !== '' ? Date.parse(timestamp) : Number.NaN;
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now.getTime() - at);
}
