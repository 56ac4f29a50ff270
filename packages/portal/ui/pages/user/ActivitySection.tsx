/**
 * The user page's activity: daily steps and daily load, one series of bars per provider, and the
 * workouts of the range with their units.
 */
import { useMemo } from "preact/hooks"
import type { UserOverview } from "../../api.js"
import { Chart } from "../../Chart.js"
import { TableFrame } from "../../components.js"
import type { SectionProps } from "./series.js"
import {
  cell,
  countsByProvider,
  dailySeries,
  dayAt,
  newestFirst,
  pointCounts,
  providerNames,
  wallClock,
  whenOf
} from "./series.js"

const totalOf = (values: ReadonlyArray<number | null>) => values.reduce<number>((sum, v) => sum + (v ?? 0), 0)

export const ActivitySection = (props: SectionProps) => {
  const { colors, days, overview } = props
  const charts = useMemo(() => ({
    x: days.map(dayAt),
    steps: dailySeries(days, overview.dailyActivity, colors, (a) => a.steps),
    // Two cycles can fall on one day (a short night): the day's load is the later one's, as the API reads it.
    load: dailySeries(days, overview.dailyLoad, colors, (l) => l.loadScore)
  }), [overview, days, colors])
  return (
    <section aria-labelledby="activity-heading">
      <h3 id="activity-heading">Activity</h3>
      <div class="charts">
        <Chart
          title="Daily steps"
          kind="bars"
          time="day"
          unit="steps"
          x={charts.x}
          series={charts.steps}
          summary={`Daily steps from ${overview.from} to ${overview.to}, per provider: ${
            charts.steps.map((s) => `${s.label} ${totalOf(s.values).toLocaleString()} in all`).join("; ") ||
            "none"
          }.`}
        />
        <Chart
          title="Daily load"
          kind="bars"
          time="day"
          unit="score"
          digits={1}
          x={charts.x}
          series={charts.load}
          summary={`Daily load from ${overview.from} to ${overview.to} (${providerNames(overview.dailyLoad)}) on ${
            pointCounts(charts.load, "days")
          }.`}
        />
      </div>
      <Workouts workouts={overview.workouts} />
    </section>
  )
}

const Workouts = (props: { readonly workouts: UserOverview["workouts"] }) =>
  props.workouts.length === 0 ? <p class="muted">No workouts in this period.</p> : (
    <details class="records">
      <summary>
        Workouts: {props.workouts.length} ({countsByProvider(props.workouts)})
      </summary>
      <TableFrame label="Workouts">
        <table>
          <thead>
            <tr>
              <th scope="col">Start (their clock)</th>
              <th scope="col">Provider</th>
              <th scope="col">Activity</th>
              <th scope="col">Duration (min)</th>
              <th scope="col">Distance (km)</th>
              <th scope="col">Energy (kcal)</th>
              <th scope="col">Avg HR (bpm)</th>
              <th scope="col">Max HR (bpm)</th>
              <th scope="col">Load</th>
            </tr>
          </thead>
          <tbody>
            {newestFirst(props.workouts, (w) => wallClock(w.startUtc, w.utcOffsetMinutes)).map((w) => (
              <tr key={w.id}>
                <td>
                  <time dateTime={w.startUtc} title={w.startUtc}>{whenOf(w.startUtc, w.utcOffsetMinutes)}</time>
                </td>
                <td>{w.provider}</td>
                <td>
                  {w.activityType}
                  {w.providerActivityName === null
                    ? null
                    : <span class="muted small">{` (${w.providerActivityName})`}</span>}
                </td>
                <td class="num">{cell(w.durationMinutes)}</td>
                <td class="num">{cell(w.distanceMeters === null ? null : w.distanceMeters / 1000, 2)}</td>
                <td class="num">{cell(w.activeEnergyKilocalories)}</td>
                <td class="num">{cell(w.averageHeartRate)}</td>
                <td class="num">{cell(w.maxHeartRate)}</td>
                <td class="num" title={w.loadScoreScale ?? undefined}>{cell(w.loadScore, 1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
    </details>
  )
