/**
 * Nesting depth of parsed values. Free-form members (valueFrom, securityContext) can nest without
 * bound, and the recursive walks downstream (canonical JSON, JSON.stringify) run out of stack at a
 * few thousand levels, so both ends of the interface refuse deep values before walking them.
 */

/** True when `value` nests objects or arrays deeper than `max` levels; walks without recursion. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
