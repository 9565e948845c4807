/**
 * PromQL as Prometheus's own editor parses it (@prometheus-io/lezer-promql, the grammar of the
 * Prometheus UI): syntax errors, and the metric names an expression selects.
 */
import { parser } from '@prometheus-io/lezer-promql';

/** What one expression holds. */
export interface ParsedPromql {
  /** Positions of syntax errors; empty for a valid expression. */
  errors: number[];
  /** Metric names of its vector and range selectors, sorted, once each. */
  metrics: string[];
  /** The text of each vector selector, label matchers included, in order. */
  selectors: string[];
}

/**
 * Grafana's interval variables are not PromQL; a dashboard's expressions are parsed with them
 * replaced by a duration, as Grafana does before it sends the query.
 */
export function withGrafanaIntervals(expr: string): string {
  return expr.replaceAll(/\$__(rate_interval|interval|range)\b/g, '5m');
}

/** Parses `expr`; never throws (the grammar recovers and marks errors). */
export function parsePromql(expr: string): ParsedPromql {
  const errors: number[] = [];
  const metrics = new Set<string>();
  const selectors: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'VectorSelector') selectors.push(expr.slice(node.from, node.to));
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') {
        metrics.add(expr.slice(node.from, node.to));
      }
    },
  });
  return { errors, metrics: [...metrics].sort(), selectors };
}

/**
 * Sample names a Prometheus text exposition declares: each `# TYPE` family, a histogram's as its
 * `_bucket`, `_sum` and `_count` series (a labelled histogram has no sample before its first
 * observation, yet is exported).
 */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    if (type === 'histogram' || type === 'summary') {
      for (const suffix of ['_sum', '_count', ...(type === 'histogram' ? ['_bucket'] : [])]) {
        names.add(name + suffix);
      }
    } else names.add(name);
  }
  return names;
}
