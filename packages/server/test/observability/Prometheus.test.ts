/**
 * The text exposition format of Effect's metrics: types, `HELP`, label escaping, cumulative
 * histogram buckets ending in `+Inf` with `_sum` and `_count`, and names made valid.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import { metricName, render } from "../../src/platform/Prometheus.js"

/** The lines of the rendered registry that belong to `name`. */
const linesOf = (text: string, name: string) =>
  text.split("\n").filter((line) => line.startsWith(`${name}`) || line.includes(` ${name} `))

describe("Prometheus text format", () => {
  it.effect("a tagged counter, with HELP and escaped label values", () =>
    Effect.gen(function*() {
      const counter = Metric.counter("test_prom_requests_total", { description: "Requests\nseen", incremental: true })
      yield* Metric.incrementBy(Metric.tagged(counter, "path", "a\"b\\c\nd"), 3)
      yield* Metric.increment(Metric.tagged(counter, "path", "plain"))
      const text = render(yield* Metric.snapshot)
      expect(linesOf(text, "test_prom_requests_total")).toEqual([
        "# HELP test_prom_requests_total Requests\\nseen",
        "# TYPE test_prom_requests_total counter",
        "test_prom_requests_total{path=\"a\\\"b\\\\c\\nd\"} 3",
        "test_prom_requests_total{path=\"plain\"} 1"
      ])
      expect(text.endsWith("\n")).toBe(true)
    }))

  it.effect("a histogram has cumulative buckets up to +Inf, a sum and a count", () =>
    Effect.gen(function*() {
      const histogram = Metric.histogram(
        "test_prom_duration_seconds",
        MetricBoundaries.fromIterable([0.1, 1]),
        "Durations"
      )
      for (const value of [0.05, 0.5, 0.5, 3]) yield* Metric.update(Metric.tagged(histogram, "route", "/x"), value)
      const text = render(yield* Metric.snapshot)
      expect(linesOf(text, "test_prom_duration_seconds")).toEqual([
        "# HELP test_prom_duration_seconds Durations",
        "# TYPE test_prom_duration_seconds histogram",
        "test_prom_duration_seconds_bucket{route=\"/x\",le=\"0.1\"} 1",
        "test_prom_duration_seconds_bucket{route=\"/x\",le=\"1\"} 3",
        "test_prom_duration_seconds_bucket{route=\"/x\",le=\"+Inf\"} 4",
        "test_prom_duration_seconds_sum{route=\"/x\"} 4.05",
        "test_prom_duration_seconds_count{route=\"/x\"} 4"
      ])
    }))

  it.effect("gauges, and counters that may go down, are gauges", () =>
    Effect.gen(function*() {
      yield* Metric.set(Metric.gauge("test_prom_queue_depth"), 7)
      const updown = Metric.counter("test_prom_active")
      yield* Metric.incrementBy(updown, 5)
      yield* Metric.incrementBy(updown, -2)
      const text = render(yield* Metric.snapshot)
      expect(linesOf(text, "test_prom_queue_depth")).toEqual([
        "# TYPE test_prom_queue_depth gauge",
        "test_prom_queue_depth 7"
      ])
      expect(linesOf(text, "test_prom_active")).toEqual(["# TYPE test_prom_active gauge", "test_prom_active 3"])
    }))

  it("names are made valid", () => {
    expect(metricName("effect.cluster-entities")).toBe("effect_cluster_entities")
    expect(metricName("9lives")).toBe("_9lives")
    expect(metricName("ok_name:sub")).toBe("ok_name:sub")
  })
})
