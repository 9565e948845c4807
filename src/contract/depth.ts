/**
 * Nesting depth of parsed values. Free-form members (valueFrom, securityContext) can nest without
 * bound, and the recursive walks downstream (canonical JSON, JSON.stringify) run out of stack at a
 * few thousand levels, so both ends of the interface refuse deep values before walking them.
 */

/**
 * True when `value` nests objects or arrays deeper than `max` levels; walks without recursion. It
 * walks every record the agent resolves, so the values and their depths wait on two stacks
 * rather than as a pair each, and an object's members are visited without listing them first.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop() as number;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        values.push(v[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    const record = v as Record<string, unknown>;
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      values.push(record[key]);
      depths.push(depth + 1);
    }
  }
  return false;
}
