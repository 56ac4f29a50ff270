/** The daily scores of the range, each with its pillars' factor breakdown in a disclosure. */
import type { DailyScore, PillarBreakdown } from "../../api.js"

const Pillar = (props: { readonly name: string; readonly pillar: PillarBreakdown }) => (
  <div class="pillar">
    <h4>
      {props.name}: {props.pillar.score ?? "no score"}
      {props.pillar.calibrating ? <span class="muted small">(calibrating)</span> : null}
    </h4>
    <table class="factors">
      <thead>
        <tr>
          <th scope="col">Factor</th>
          <th scope="col">Value</th>
          <th scope="col">Sub-score</th>
          <th scope="col">Points lost</th>
        </tr>
      </thead>
      <tbody>
        {props.pillar.factors.map((f) => (
          <tr key={f.key}>
            <td>{f.key}</td>
            <td>
              {f.value === null ? <span class="muted">{f.state}</span> : `${Math.round(f.value * 10) / 10} ${f.unit}`}
            </td>
            <td class="num">{f.subScore === null ? "" : Math.round(f.subScore)}</td>
            <td class="num">{Math.round(f.pointsLost * 10) / 10}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
)

export const Scores = (props: { readonly scores: ReadonlyArray<DailyScore> }) =>
  props.scores.length === 0 ? <p class="muted">No scores in this period.</p> : (
    <div class="scores">
      {props.scores.map((s) => (
        <details key={s.date}>
          <summary>
            <strong>{s.date}</strong> overall {s.overallScore ?? "–"} · sleep {s.sleepScore ?? "–"} · activity{" "}
            {s.activityScore ?? "–"} · recovery {s.recoveryScore ?? "–"}
          </summary>
          <div class="grid">
            <Pillar name="Sleep" pillar={s.components.sleep} />
            <Pillar name="Activity" pillar={s.components.activity} />
            <Pillar name="Recovery" pillar={s.components.recovery} />
          </div>
        </details>
      ))}
    </div>
  )
