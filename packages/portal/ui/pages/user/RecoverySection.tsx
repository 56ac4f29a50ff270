/**
 * The user page's recovery: heart rate variability and resting heart rate each morning, one line per
 * provider, and every day's recovery record of the range in a table.
 */
import { useMemo } from "preact/hooks"
import { Chart } from "../../Chart.js"
import { TableFrame } from "../../components.js"
import type { SectionProps } from "./series.js"
import { cell, countsByProvider, dailySeries, dayAt, newestFirst, pointCounts } from "./series.js"

export const RecoverySection = (props: SectionProps) => {
  const { colors, days, overview } = props
  const charts = useMemo(() => ({
    x: days.map(dayAt),
    hrv: dailySeries(days, overview.recovery, colors, (r) => r.hrvRmssdMs),
    resting: dailySeries(days, overview.recovery, colors, (r) => r.restingHeartRate)
  }), [overview, days, colors])
  return (
    <section aria-labelledby="recovery-heading">
      <h3 id="recovery-heading">Recovery</h3>
      <div class="charts">
        <Chart
          title="Heart rate variability"
          kind="line"
          time="day"
          unit="ms"
          x={charts.x}
          series={charts.hrv}
          summary={`HRV (RMSSD) from ${overview.from} to ${overview.to}: ${pointCounts(charts.hrv, "days")}.`}
        />
        <Chart
          title="Resting heart rate"
          kind="line"
          time="day"
          unit="bpm"
          x={charts.x}
          series={charts.resting}
          summary={`Resting heart rate from ${overview.from} to ${overview.to}: ${
            pointCounts(charts.resting, "days")
          }.`}
        />
      </div>
      {overview.recovery.length === 0 ? <p class="muted">No recovery in this period.</p> : (
        <details class="records">
          <summary>
            Recovery days: {overview.recovery.length} ({countsByProvider(overview.recovery)})
          </summary>
          <TableFrame label="Recovery days">
            <table>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Resting HR (bpm)</th>
                  <th scope="col">HRV (ms)</th>
                  <th scope="col">SpO₂ (%)</th>
                  <th scope="col">Respiration (/min)</th>
                  <th scope="col">Skin temp. vs baseline (°C)</th>
                  <th scope="col">Score</th>
                </tr>
              </thead>
              <tbody>
                {newestFirst(overview.recovery, (r) => r.provider).map((r) => (
                  <tr key={r.id}>
                    <td class="date">{r.date}</td>
                    <td>{r.provider}</td>
                    <td class="num">{cell(r.restingHeartRate)}</td>
                    <td class="num">{cell(r.hrvRmssdMs)}</td>
                    <td class="num">{cell(r.spo2Percent, 1)}</td>
                    <td class="num">{cell(r.respiratoryRate, 1)}</td>
                    <td class="num">
                      {r.skinTemperatureDeviationCelsius === null ?
                        "" :
                        `${r.skinTemperatureDeviationCelsius > 0 ? "+" : ""}${
                          cell(r.skinTemperatureDeviationCelsius, 1)
                        }`}
                    </td>
                    <td class="num" title={r.providerScoreScale ?? undefined}>{cell(r.providerScore)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        </details>
      )}
    </section>
  )
}
