/**
 * prom-client's metric classes, loaded without prom-client's index, which also evaluates the
 * cluster aggregator (Node's `cluster` module), the Pushgateway, default metrics and
 * OpenTelemetry's API for exemplars, which cost resident memory and start-up time (bench/README.md,
 * "Measured decisions"). The agent keeps its metrics in a registry of its own and
 * uses none of those. Each binding is the very class the index exports (checked by
 * test/lean/lean-imports.test.ts).
 */
import { createRequire } from 'node:module';
import type * as promClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry.js') as typeof promClient.Registry;
export const Counter = require('prom-client/lib/counter.js') as typeof promClient.Counter;
export const Gauge = require('prom-client/lib/gauge.js') as typeof promClient.Gauge;
export const Histogram = require('prom-client/lib/histogram.js') as typeof promClient.Histogram;

/** Registers a collector of prom-client's default metrics in `registry`, as the index's own do. */
export type DefaultMetricCollector = (registry: promClient.Registry) => void;

/**
 * Two of prom-client's default metrics, by their own modules: `process_resident_memory_bytes`
 * (with `process_virtual_memory_bytes` and `process_heap_bytes` on Linux) and
 * `process_start_time_seconds`, which the chart's dashboard and restart alert read. The other
 * defaults (event loop lag, GC, handles) stay unloaded.
 */
export const processMemoryMetrics =
  require('prom-client/lib/metrics/osMemoryHeap.js') as DefaultMetricCollector;
export const processStartTimeMetric =
  require('prom-client/lib/metrics/processStartTime.js') as DefaultMetricCollector;
export type Registry<T extends promClient.RegistryContentType = promClient.PrometheusContentType> =
  promClient.Registry<T>;
export type Counter<T extends string = string> = promClient.Counter<T>;
export type Gauge<T extends string = string> = promClient.Gauge<T>;
export type Histogram<T extends string = string> = promClient.Histogram<T>;
