/**
 * The user page's glucose: one line per provider over the target band (70-180 mg/dL unless the server
 * says otherwise), journal meals marked, and each provider's time below, in and above the band over the
 * range, as the server's glucose summaries count it (every reading, not the chart's bucket means).
 */
import { useMemo } from "preact/hooks"
import type { UserOverview } from "../../api.js"
import { Chart } from "../../Chart.js"
import { TableFrame } from "../../components.js"
import type { Colors } from "./series.js"
import { cell, instantSeries } from "./series.js"

type Summary = UserOverview["glucoseSummaries"][number]

const below = (s: Summary) => s.stats.timeInRanges.veryLow + s.stats.timeInRanges.low
const above = (s: Summary) => s.stats.timeInRanges.high + s.stats.timeInRanges.veryHigh

/** The three shares as one bar, each part labelled by its pattern as well as its colour. */
const RangeBar = (props: { readonly summary: Summary }) => {
  const parts = [
    { share: below(props.summary), color: "#b91c1c" },
    { share: props.summary.stats.timeInRanges.inRange, color: "#15803d" },
    { share: above(props.summary), color: "#b45309" }
  ]
  let x = 0
  return (
    <svg class="range-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
      {parts.map((p, i) => {
        const rect = <rect key={i} x={x} y="0" width={p.share} height="10" fill={p.color} />
        x += p.share
        return rect
      })}
    </svg>
  )
}

export const GlucoseSection = (props: {
  readonly overview: UserOverview
  readonly colors: Colors
}) => {
  const { colors, overview } = props
  const target = overview.glucoseTarget
  const summaries = overview.glucoseSummaries
  const chart = useMemo(() => {
    const lines = instantSeries(overview.glucose, colors, (g) => new Date(g.time).getTime() / 1000, (g) => g.value)
    const byProvider = new Map(summaries.map((s) => [s.provider, s]))
    return {
      x: lines.x,
      series: lines.series.map((s) => {
        const summary = byProvider.get(s.label)
        return summary === undefined ? s : {
          ...s,
          note: `mean ${cell(summary.stats.meanMgDl)} mg/dL · ${cell(summary.stats.timeInRanges.inRange, 1)}% in range`
        }
      }),
      unit: overview.glucose[0]?.unit ?? "mg/dL",
      marks: overview.meals.map((m) => ({ at: new Date(m.consumedAtUtc).getTime() / 1000, label: m.title ?? m.kind }))
    }
  }, [overview, colors])
  const band = `${target.lowMgDl}–${target.highMgDl} mg/dL`
  return (
    <section aria-labelledby="glucose-heading">
      <h3 id="glucose-heading">Glucose</h3>
      <p class="small muted">
        Target range {band} (the international consensus range). Time in range counts every reading of the range: below
        {" "}
        {target.lowMgDl}, from {target.lowMgDl} to {target.highMgDl} (both included) and above {target.highMgDl}{" "}
        mg/dL. The chart shows means of {overview.glucoseBucketMinutes} minutes.
      </p>
      <div class="charts">
        <Chart
          title="Glucose, with meals marked"
          kind="line"
          time="instant"
          unit={chart.unit}
          x={chart.x}
          series={chart.series}
          band={chart.unit === "mg/dL"
            ? { low: target.lowMgDl, high: target.highMgDl, label: `Target range ${band}` }
            : undefined}
          marks={chart.marks}
          summary={`Glucose from ${overview.from} to ${overview.to}: ${
            summaries.map((s) =>
              `${s.provider} ${s.stats.readings} readings, mean ${s.stats.meanMgDl} mg/dL, ${s.stats.timeInRanges.inRange}% in range`
            ).join("; ") || "no readings"
          }; ${chart.marks.length} meals marked.`}
        />
      </div>
      {chart.marks.length === 0 ? null : (
        <p class="small muted">
          <span class="mark-key" aria-hidden="true" /> Meals: {chart.marks.map((m) => m.label).join(", ")}
        </p>
      )}
      {summaries.length === 0 ? null : (
        <TableFrame label="Time in range">
          <table>
            <caption class="sr-only">Time in range per provider, {overview.from} to {overview.to}</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Readings</th>
                <th scope="col">Mean (mg/dL)</th>
                <th scope="col">Below (%)</th>
                <th scope="col">In range (%)</th>
                <th scope="col">Above (%)</th>
                <th scope="col">
                  <span class="sr-only">Shares</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {summaries.map((s) => (
                <tr key={s.connectionId}>
                  <th scope="row">{s.provider}</th>
                  <td class="num">{cell(s.stats.readings)}</td>
                  <td class="num">{cell(s.stats.meanMgDl)}</td>
                  <td class="num">
                    {cell(below(s), 1)}
                    <div class="small muted">below 54: {cell(s.stats.timeInRanges.veryLow, 1)}</div>
                  </td>
                  <td class="num">{cell(s.stats.timeInRanges.inRange, 1)}</td>
                  <td class="num">
                    {cell(above(s), 1)}
                    <div class="small muted">above 250: {cell(s.stats.timeInRanges.veryHigh, 1)}</div>
                  </td>
                  <td class="range-cell">
                    <RangeBar summary={s} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </section>
  )
}
