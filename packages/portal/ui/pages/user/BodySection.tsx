/**
 * The user page's body measurements: weight, one line per provider (each scale's own weighings, never
 * two devices' mixed in one line), and every measurement of the range in a table.
 */
import { useMemo } from "preact/hooks"
import type { UserOverview } from "../../api.js"
import { Chart } from "../../Chart.js"
import { TableFrame } from "../../components.js"
import type { Colors } from "./series.js"
import { cell, countsByProvider, instantSeries, newestFirst, pointCounts, whenOf } from "./series.js"

export const BodySection = (props: { readonly overview: UserOverview; readonly colors: Colors }) => {
  const { colors, overview } = props
  const weight = useMemo(
    () =>
      instantSeries(overview.body, colors, (b) => new Date(b.measuredAtUtc).getTime() / 1000, (b) => b.weightKilograms),
    [overview, colors]
  )
  return (
    <section aria-labelledby="body-heading">
      <h3 id="body-heading">Body measurements</h3>
      <div class="charts">
        <Chart
          title="Weight"
          kind="line"
          time="instant"
          unit="kg"
          digits={1}
          x={weight.x}
          series={weight.series}
          summary={`Weighings from ${overview.from} to ${overview.to}: ${pointCounts(weight.series) || "none"}.`}
        />
      </div>
      {overview.body.length === 0 ?
        <p class="muted">No body measurements in this period.</p> :
        (
          <details class="records">
            <summary>
              Body measurements: {overview.body.length} ({countsByProvider(overview.body)})
            </summary>
            <TableFrame label="Body measurements">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Measured</th>
                    <th scope="col">Provider</th>
                    <th scope="col">Weight (kg)</th>
                    <th scope="col">Body fat (%)</th>
                    <th scope="col">Lean mass (kg)</th>
                    <th scope="col">BMI (kg/m²)</th>
                    <th scope="col">Height (m)</th>
                  </tr>
                </thead>
                <tbody>
                  {newestFirst(overview.body, (b) => b.measuredAtUtc).map((b) => (
                    <tr key={b.id}>
                      <td>
                        <time dateTime={b.measuredAtUtc} title={b.measuredAtUtc}>{whenOf(b.measuredAtUtc)}</time>
                      </td>
                      <td>{b.provider}</td>
                      <td class="num">{cell(b.weightKilograms, 1)}</td>
                      <td class="num">{cell(b.bodyFatPercent, 1)}</td>
                      <td class="num">{cell(b.leanMassKilograms, 1)}</td>
                      <td class="num">{cell(b.bmi, 1)}</td>
                      <td class="num">{cell(b.heightMeters, 2)}</td>
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
