/**
 * The Prometheus text exposition format (version 0.0.4) of Effect's metric registry. Every metric
 * of the server is an Effect `Metric` (counters, gauges, histograms with tags), so the same values
 * reach `/metrics` and, when configured, the OpenTelemetry exporter. The registry is the process's
 * own: each API and worker process is scraped on its own.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricKeyType from "effect/MetricKeyType"
import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"

/** The `Content-Type` of the format. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

/** A metric or label name as Prometheus allows it (`[a-zA-Z_:][a-zA-Z0-9_:]*`). */
export const metricName = (name: string): string => {
  const cleaned = name.replace(/[^a-zA-Z0-9_:]/g, "_")
  return /^[a-zA-Z_:]/.test(cleaned) ? cleaned : `_${cleaned}`
}

const labelName = (name: string): string => metricName(name).replace(/:/g, "_")

const escapeLabel = (value: string): string => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

const escapeHelp = (value: string): string => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const formatNumber = (value: number | bigint): string => {
  if (typeof value === "bigint") return value.toString()
  if (Number.isNaN(value)) return "NaN"
  if (value === Number.POSITIVE_INFINITY) return "+Inf"
  if (value === Number.NEGATIVE_INFINITY) return "-Inf"
  return String(value)
}

const labels = (pairs: ReadonlyArray<readonly [string, string]>): string =>
  pairs.length === 0 ? "" : `{${pairs.map(([key, value]) => `${labelName(key)}="${escapeLabel(value)}"`).join(",")}}`

interface Family {
  readonly type: "counter" | "gauge" | "histogram" | "summary"
  readonly help: string | undefined
  readonly lines: Array<string>
}

/** The sample lines of one metric pair, and the Prometheus type of its family. */
const samples = (
  name: string,
  tags: ReadonlyArray<readonly [string, string]>,
  pair: MetricPair.MetricPair.Untyped
): { readonly type: Family["type"]; readonly lines: ReadonlyArray<string> } | undefined => {
  const state = pair.metricState
  if (MetricState.isCounterState(state)) {
    // A counter that is not `incremental` may go down (e.g. active fibers): Prometheus calls that a gauge.
    const keyType = pair.metricKey.keyType
    const incremental = MetricKeyType.isCounterKey(keyType) && keyType.incremental
    return {
      type: incremental ? "counter" : "gauge",
      lines: [`${name}${labels(tags)} ${formatNumber(state.count)}`]
    }
  }
  if (MetricState.isGaugeState(state)) {
    return { type: "gauge", lines: [`${name}${labels(tags)} ${formatNumber(state.value)}`] }
  }
  if (MetricState.isHistogramState(state)) {
    const lines: Array<string> = []
    let hasInfinity = false
    for (const [boundary, count] of state.buckets) {
      if (boundary === Number.POSITIVE_INFINITY) hasInfinity = true
      lines.push(`${name}_bucket${labels([...tags, ["le", formatNumber(boundary)]])} ${count}`)
    }
    if (!hasInfinity) lines.push(`${name}_bucket${labels([...tags, ["le", "+Inf"]])} ${state.count}`)
    lines.push(`${name}_sum${labels(tags)} ${formatNumber(state.sum)}`)
    lines.push(`${name}_count${labels(tags)} ${state.count}`)
    return { type: "histogram", lines }
  }
  if (MetricState.isSummaryState(state)) {
    const lines: Array<string> = []
    for (const [quantile, value] of state.quantiles) {
      if (Option.isSome(value)) {
        lines.push(`${name}${labels([...tags, ["quantile", String(quantile)]])} ${formatNumber(value.value)}`)
      }
    }
    lines.push(`${name}_sum${labels(tags)} ${formatNumber(state.sum)}`)
    lines.push(`${name}_count${labels(tags)} ${state.count}`)
    return { type: "summary", lines }
  }
  if (MetricState.isFrequencyState(state)) {
    // A frequency is a counter per observed value.
    return {
      type: "counter",
      lines: Array.from(state.occurrences, ([value, count]) => `${name}${labels([...tags, ["value", value]])} ${count}`)
    }
  }
  return undefined
}

/** Renders metric pairs as one text document: families sorted by name, each with its `HELP` and `TYPE`. */
export const render = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const families = new Map<string, Family>()
  const keyed = pairs.map((pair) => {
    const tags = pair.metricKey.tags
      .map((tag) => [tag.key, tag.value] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return { pair, tags, order: labels(tags) }
  }).sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
  for (const { pair, tags } of keyed) {
    const name = metricName(pair.metricKey.name)
    const rendered = samples(name, tags, pair)
    if (rendered === undefined) continue
    const family = families.get(name) ??
      { type: rendered.type, help: Option.getOrUndefined(pair.metricKey.description), lines: [] }
    // One name with two types would be an invalid document; the first type wins.
    if (family.type !== rendered.type) continue
    family.lines.push(...rendered.lines)
    families.set(name, family)
  }
  const out: Array<string> = []
  for (const name of Array.from(families.keys()).sort()) {
    const family = families.get(name)!
    if (family.help !== undefined) out.push(`# HELP ${name} ${escapeHelp(family.help)}`)
    out.push(`# TYPE ${name} ${family.type}`)
    out.push(...family.lines)
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`
}

/** The process's whole registry in the text format. */
export const scrape: Effect.Effect<string> = Effect.map(Metric.snapshot, render)
