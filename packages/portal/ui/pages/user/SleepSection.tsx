/**
 * The user page's sleep: hours asleep each night, one series of bars per provider (the night's main
 * sleep: its longest session that is not a nap), and every session and nap of the range in a table.
 */
import { useMemo } from "preact/hooks"
import type { UserOverview } from "../../api.js"
import { Chart } from "../../Chart.js"
import { TableFrame } from "../../components.js"
import type { SectionProps } from "./series.js"
import {
  cell,
  clockOf,
  countsByProvider,
  dailySeries,
  dayAt,
  newestFirst,
  pointCounts,
  providerNames,
  round,
  wallClock,
  whenOf
} from "./series.js"

type Sleep = UserOverview["sleep"][number]

export const SleepSection = (props: SectionProps) => {
  const { colors, days, overview } = props
  const series = useMemo(
    () =>
      dailySeries(
        days,
        overview.sleep.filter((s) => !s.isNap),
        colors,
        (s) => round(s.asleepMinutes === null ? null : s.asleepMinutes / 60, 1),
        (a, b) => (b.asleepMinutes ?? 0) > (a.asleepMinutes ?? 0) ? b : a
      ),
    [overview, days, colors]
  )
  return (
    <section aria-labelledby="sleep-heading">
      <h3 id="sleep-heading">Sleep</h3>
      <div class="charts">
        <Chart
          title="Sleep"
          kind="bars"
          time="day"
          unit="h asleep"
          digits={1}
          x={days.map(dayAt)}
          series={series}
          summary={`Hours asleep each night from ${overview.from} to ${overview.to} (${
            providerNames(overview.sleep)
          }): ${pointCounts(series, "nights")}.`}
        />
      </div>
      <SleepTable sessions={overview.sleep} />
    </section>
  )
}

const SleepTable = (props: { readonly sessions: ReadonlyArray<Sleep> }) =>
  props.sessions.length === 0 ? <p class="muted">No sleep in this period.</p> : (
    <details class="records">
      <summary>
        Sleep sessions: {props.sessions.length} ({countsByProvider(props.sessions)})
      </summary>
      <TableFrame label="Sleep sessions">
        <table>
          <thead>
            <tr>
              <th scope="col">Night of</th>
              <th scope="col">Provider</th>
              <th scope="col">From – to (their clock)</th>
              <th scope="col">Asleep (h)</th>
              <th scope="col">Deep (min)</th>
              <th scope="col">REM (min)</th>
              <th scope="col">Light (min)</th>
              <th scope="col">Awake (min)</th>
              <th scope="col">Efficiency (%)</th>
              <th scope="col">Avg HR (bpm)</th>
              <th scope="col">HRV (ms)</th>
              <th scope="col">Score</th>
            </tr>
          </thead>
          <tbody>
            {newestFirst(props.sessions, (s) => wallClock(s.startUtc, s.utcOffsetMinutes)).map((s) => (
              <tr key={s.id}>
                <td class="date">
                  {s.date}
                  {s.isNap ? <span class="badge info">nap</span> : null}
                </td>
                <td>{s.provider}</td>
                <td>
                  <time dateTime={s.startUtc} title={s.startUtc}>{whenOf(s.startUtc, s.utcOffsetMinutes)}</time> –{" "}
                  <time dateTime={s.endUtc} title={s.endUtc}>{clockOf(s.endUtc, s.utcOffsetMinutes)}</time>
                </td>
                <td class="num">{cell(s.asleepMinutes === null ? null : s.asleepMinutes / 60, 1)}</td>
                <td class="num">{cell(s.deepMinutes)}</td>
                <td class="num">{cell(s.remMinutes)}</td>
                <td class="num">{cell(s.lightMinutes)}</td>
                <td class="num">{cell(s.awakeMinutes)}</td>
                <td class="num">{cell(s.efficiencyPercent)}</td>
                <td class="num">{cell(s.averageHeartRate)}</td>
                <td class="num">{cell(s.hrvRmssdMs)}</td>
                <td class="num" title={s.providerScoreScale ?? undefined}>{cell(s.providerScore)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
    </details>
  )
