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
  /** Each selector's metric name and the label names it matches on, in order. */
  matchers: Array<{ metric: string; labels: string[] }>;
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
  const matchers: ParsedPromql['matchers'] = [];
  const text = (n: { from: number; to: number }) => expr.slice(n.from, n.to);
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'VectorSelector') {
        selectors.push(text(node));
        const metric = node.node.getChild('Identifier');
        const labels = (
          node.node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []
        ).flatMap((m) => {
          const name = m.getChild('LabelName');
          return name ? [text(name)] : [];
        });
        if (metric) matchers.push({ metric: text(metric), labels });
      }
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') {
        metrics.add(expr.slice(node.from, node.to));
      }
    },
  });
  return { errors, metrics: [...metrics].sort(), selectors, matchers };
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

/**
 * The label names each sample name carries in an exposition (`name{a="x",b="y"} 1`), for the
 * series it has; a family without a sample yet is absent.
 */
export function exportedLabels(exposition: string): Map<string, Set<string>> {
  const labels = new Map<string, Set<string>>();
  for (const m of exposition.matchAll(/^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? \S+$/gm)) {
    const [, name, body] = m as unknown as [string, string, string | undefined];
    const set = labels.get(name) ?? new Set<string>();
    for (const pair of (body ?? '').matchAll(/([a-zA-Z_]\w*)="/g)) set.add(pair[1]!);
    labels.set(name, set);
  }
  return labels;
}
