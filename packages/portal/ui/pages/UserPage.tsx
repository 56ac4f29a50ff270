/**
 * One user: connections (status, sync state and progress, last error, quarantined records, re-sync),
 * 14-day charts of daily steps, daily load and glucose with journal meals marked, daily scores with
 * their factor breakdown, journal entries with their photos, export and erasure. While a connection
 * syncs, the page refreshes itself, so a backfill is seen arriving.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type { Connection, DailyScore, PillarBreakdown, UserOverview } from "../api.js"
import { api } from "../api.js"
import { Chart } from "../Chart.js"
import { Badge, Confirm, ErrorNote, Link, Loading, message, TableFrame, Time, toneOf, useLoad } from "../components.js"
import { navigate } from "../router.js"

const syncing = (connection: Connection) =>
  connection.syncState === "Pending" || connection.syncState === "Backfilling" || connection.syncProgress !== null

/** A local date (YYYY-MM-DD) at noon, in seconds: the middle of its bar whatever the viewer's zone. */
const dayAt = (date: string) => new Date(`${date}T12:00:00`).getTime() / 1000

const total = (values: ReadonlyArray<number | null>) => values.reduce<number>((sum, v) => sum + (v ?? 0), 0)

const Connections = (props: {
  readonly userId: string
  readonly connections: ReadonlyArray<Connection>
  readonly onChange: () => void
}) => {
  const isAdmin = useIsAdmin()
  const [error, setError] = useState<unknown>(undefined)
  const [asked, setAsked] = useState<string | undefined>(undefined)
  if (props.connections.length === 0) return <p class="muted">No connections.</p>
  return (
    <>
      <ErrorNote error={error} />
      {asked === undefined ? null : <p class="note ok" role="status">{asked}</p>}
      <TableFrame label="Connections">
        <table>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Status</th>
              <th scope="col">Sync</th>
              <th scope="col">Last synced</th>
              <th scope="col">Last error</th>
              <th scope="col">Quarantined</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.connections.map((c) => (
              <tr key={c.id}>
                <td>{c.provider}</td>
                <td>
                  <Badge tone={toneOf(c.status)}>{c.status}</Badge>
                  {c.statusReason === null ? null : <div class="small muted">{c.statusReason}</div>}
                </td>
                <td>
                  <Badge tone={toneOf(c.syncState)}>{c.syncState}</Badge>
                  {c.syncProgress === null ? null : (
                    <div class="small">
                      <progress
                        max={c.syncProgress.windowsTotal}
                        value={c.syncProgress.windowsDone}
                        aria-label={`${c.provider} backfill progress`}
                      />{" "}
                      {c.syncProgress.windowsDone}/{c.syncProgress.windowsTotal} windows
                      {c.syncProgress.oldestDateReached === null ? "" : `, back to ${c.syncProgress.oldestDateReached}`}
                    </div>
                  )}
                </td>
                <td>
                  <Time at={c.lastSyncedAt} />
                </td>
                <td class="small">{c.syncError ?? <span class="muted">none</span>}</td>
                <td class="num">{c.quarantinedRecords}</td>
                <td>
                  <button
                    hidden={!isAdmin}
                    type="button"
                    class="secondary small"
                    aria-label={`Re-sync ${c.provider}`}
                    disabled={c.status !== "Active"}
                    onClick={() => {
                      setError(undefined)
                      api.resync(props.userId, c.id).then(() => {
                        setAsked(`A re-sync of ${c.provider} was asked for.`)
                        props.onChange()
                      }, setError)
                    }}
                  >
                    Re-sync
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
    </>
  )
}

const Charts = (props: { readonly overview: UserOverview }) => {
  const { overview } = props
  const charts = useMemo(() => {
    const days: Array<string> = []
    for (let d = new Date(`${overview.from}T12:00:00Z`); d <= new Date(`${overview.to}T12:00:00Z`);) {
      days.push(d.toISOString().slice(0, 10))
      d = new Date(d.getTime() + 86_400_000)
    }
    const stepsByDay = new Map<string, number>()
    // One value per day: with several providers, the one that counted the most steps.
    for (const a of overview.dailyActivity) stepsByDay.set(a.date, Math.max(stepsByDay.get(a.date) ?? 0, a.steps))
    const loadByDay = new Map<string, number>()
    for (const l of overview.dailyLoad) loadByDay.set(l.date, Math.max(loadByDay.get(l.date) ?? 0, l.loadScore))
    // The night's main sleep: the longest that is not a nap (of any provider).
    const sleepByDay = new Map<string, number>()
    for (const s of overview.sleep) {
      if (s.isNap || s.asleepMinutes === null) continue
      sleepByDay.set(s.date, Math.max(sleepByDay.get(s.date) ?? 0, Math.round(s.asleepMinutes / 6) / 10))
    }
    const hrvByDay = new Map<string, number>()
    for (const r of overview.recovery) if (r.hrvRmssdMs !== null) hrvByDay.set(r.date, Math.round(r.hrvRmssdMs))
    // One scale's weighings (the provider with the most), never two devices' mixed in one line.
    const weighed = overview.body.filter((b) => b.weightKilograms !== null)
    const counts = new Map<string, number>()
    for (const b of weighed) counts.set(b.provider, (counts.get(b.provider) ?? 0) + 1)
    const scale = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0]
    const weighings = weighed.filter((b) => b.provider === scale)
      .sort((a, b) => a.measuredAtUtc.localeCompare(b.measuredAtUtc))
    const glucose = [...overview.glucose].sort((a, b) => a.time.localeCompare(b.time))
    const glucoseValues = glucose.map((g) => g.value)
    const present = glucoseValues
    return {
      x: days.map(dayAt),
      steps: days.map((d) => stepsByDay.get(d) ?? null),
      load: days.map((d) => loadByDay.get(d) ?? null),
      sleep: days.map((d) => sleepByDay.get(d) ?? null),
      hrv: days.map((d) => hrvByDay.get(d) ?? null),
      weightX: weighings.map((b) => new Date(b.measuredAtUtc).getTime() / 1000),
      weightY: weighings.map((b) => b.weightKilograms),
      scale,
      providersOf: (list: ReadonlyArray<{ readonly provider: string }>) =>
        [...new Set(list.map((r) => r.provider))].sort().join(", ") || "no provider",
      glucoseX: glucose.map((g) => new Date(g.time).getTime() / 1000),
      glucoseY: glucoseValues,
      glucoseUnit: glucose[0]?.unit ?? "mg/dL",
      glucoseRange: present.length === 0 ? "" : `from ${Math.min(...present)} to ${Math.max(...present)}`,
      marks: overview.meals.map((m) => ({
        at: new Date(m.consumedAtUtc).getTime() / 1000,
        label: m.title ?? m.kind
      }))
    }
  }, [overview])
  return (
    <div class="charts">
      <Chart
        title="Daily steps"
        kind="bars"
        unit="steps"
        color="#2563eb"
        x={charts.x}
        y={charts.steps}
        summary={`Daily steps from ${overview.from} to ${overview.to}: ${total(charts.steps).toLocaleString()} in all.`}
      />
      <Chart
        title="Daily load"
        kind="bars"
        unit="score"
        color="#7c3aed"
        x={charts.x}
        y={charts.load}
        summary={`Daily load from ${overview.from} to ${overview.to} on ${
          charts.load.filter((v) => v !== null).length
        } days.`}
      />
      <Chart
        title="Sleep"
        kind="bars"
        unit="h asleep"
        color="#4f46e5"
        x={charts.x}
        y={charts.sleep}
        summary={`Hours asleep each night from ${overview.from} to ${overview.to} (${
          charts.providersOf(overview.sleep)
        }): ${charts.sleep.filter((v) => v !== null).length} nights.`}
      />
      <Chart
        title="Heart rate variability"
        kind="bars"
        unit="ms"
        color="#0891b2"
        x={charts.x}
        y={charts.hrv}
        summary={`HRV (RMSSD) from ${overview.from} to ${overview.to} (${charts.providersOf(overview.recovery)}) on ${
          charts.hrv.filter((v) => v !== null).length
        } days.`}
      />
      {charts.weightY.length === 0 ? null : (
        <Chart
          title={`Weight (${charts.scale})`}
          kind="line"
          unit="kg"
          color="#be185d"
          x={charts.weightX}
          y={charts.weightY}
          summary={`${charts.weightY.length} weighings from ${charts.scale}, from ${
            Math.min(...charts.weightY.map(Number))
          } to ${Math.max(...charts.weightY.map(Number))} kg.`}
        />
      )}
      <Chart
        title="Glucose, with meals marked"
        kind="line"
        unit={charts.glucoseUnit}
        color="#059669"
        x={charts.glucoseX}
        y={charts.glucoseY}
        marks={charts.marks}
        summary={`${charts.glucoseY.length} glucose readings ${charts.glucoseRange} ${charts.glucoseUnit}; ${charts.marks.length} meals marked.`}
      />
      {charts.marks.length === 0 ? null : (
        <p class="small muted">
          <span class="mark-key" aria-hidden="true" /> Meals: {charts.marks.map((m) => m.label).join(", ")}
        </p>
      )}
    </div>
  )
}

const Workouts = (props: { readonly workouts: UserOverview["workouts"] }) =>
  props.workouts.length === 0 ? <p class="muted">No workouts in this period.</p> : (
    <TableFrame label="Workouts">
      <table>
        <thead>
          <tr>
            <th scope="col">Start</th>
            <th scope="col">Provider</th>
            <th scope="col">Activity</th>
            <th scope="col">Minutes</th>
            <th scope="col">kcal</th>
            <th scope="col">Avg HR</th>
            <th scope="col">Load</th>
          </tr>
        </thead>
        <tbody>
          {[...props.workouts].reverse().map((w) => (
            <tr key={w.id}>
              <td>
                <Time at={w.startUtc} />
              </td>
              <td>{w.provider}</td>
              <td>
                {w.activityType}
                {w.providerActivityName === null ? null : <span class="muted small">({w.providerActivityName})</span>}
              </td>
              <td class="num">{Math.round(w.durationMinutes)}</td>
              <td class="num">{w.activeEnergyKilocalories === null ? "" : Math.round(w.activeEnergyKilocalories)}</td>
              <td class="num">{w.averageHeartRate ?? ""}</td>
              <td class="num">{w.loadScore === null ? "" : `${Math.round(w.loadScore * 10) / 10}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  )

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

const Scores = (props: { readonly scores: ReadonlyArray<DailyScore> }) =>
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

/** Sandbox mode: connects the user to a simulated provider in one click (the connect flow runs on the server). */
const SandboxConnect = (props: {
  readonly appId: string
  readonly userId: string
  readonly connected: ReadonlyArray<string>
  readonly onConnected: () => void
}) => {
  const isAdmin = useIsAdmin()
  const providers = useLoad(() => api.providers(props.appId), [props.appId])
  const [busy, setBusy] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const missing = providers.data?.data.filter((p) => !props.connected.includes(p.provider)) ?? []
  if (missing.length === 0) return null
  return (
    <div hidden={!isAdmin} class="card" role="region" aria-label="Sandbox connections">
      <p class="small muted">Sandbox: connect this user to a simulated provider.</p>
      <div class="actions">
        {missing.map((p) => (
          <button
            key={p.provider}
            type="button"
            class="secondary small"
            disabled={busy !== undefined}
            onClick={() => {
              setBusy(p.provider)
              setError(undefined)
              api.sandboxConnect(props.userId, p.provider).then(props.onConnected, setError).finally(() =>
                setBusy(undefined)
              )
            }}
          >
            {busy === p.provider ? `Connecting ${p.displayName}…` : `Connect ${p.displayName}`}
          </button>
        ))}
      </div>
      <ErrorNote error={error} />
    </div>
  )
}

export const UserPage = (props: { readonly appId: string; readonly userId: string; readonly sandbox: boolean }) => {
  const isAdmin = useIsAdmin()
  const detail = useLoad(() => api.user(props.userId), [props.userId])
  const overview = useLoad(() => api.overview(props.userId, 14), [props.userId])
  const journal = useLoad(() => api.journal(props.userId), [props.userId])
  const [erasing, setErasing] = useState(false)
  const busy = detail.data?.connections.some(syncing) ?? false

  useEffect(() => {
    if (detail.data !== undefined) document.title = `User ${detail.data.user.externalUserId} · PulseBridge admin`
  }, [detail.data])
  // While a connection syncs, the page follows it; the data it brings is charted as it arrives.
  useEffect(() => {
    if (!busy) return
    const timer = setInterval(() => {
      detail.reload()
      overview.reload()
    }, 2000)
    return () => {
      clearInterval(timer)
      overview.reload()
      journal.reload()
    }
  }, [busy])

  if (detail.data === undefined) {
    return (
      <section>
        <p class="crumbs">
          <Link href={`/portal/apps/${props.appId}/users`}>Users</Link>
        </p>
        {detail.loading ? <Loading what="the user" /> : <ErrorNote error={detail.error} />}
      </section>
    )
  }
  const { connections, user } = detail.data
  return (
    <section>
      <p class="crumbs">
        <Link href={`/portal/apps/${props.appId}/users`}>Users</Link> / {user.externalUserId}
      </p>
      <div class="title-row">
        <h1>{user.externalUserId}</h1>
        <Badge tone={toneOf(user.status)}>{user.status}</Badge>
      </div>
      <p class="muted small">
        User id <code>{user.id}</code> · {user.timezone} · {user.locale} · created <Time at={user.createdAt} />
      </p>
      <div class="actions">
        <a class="button secondary" href={api.exportUrl(user.id)} download={`${user.externalUserId}.ndjson`}>
          Export (NDJSON)
        </a>
        <button hidden={!isAdmin} type="button" class="danger" onClick={() => setErasing(true)}>Erase user…</button>
      </div>

      <h2>Connections</h2>
      <Connections userId={user.id} connections={connections} onChange={detail.reload} />
      {props.sandbox && user.status === "Active"
        ? (
          <SandboxConnect
            appId={props.appId}
            userId={user.id}
            connected={connections.map((c) => c.provider)}
            onConnected={detail.reload}
          />
        )
        : null}

      <h2>Last 14 days</h2>
      <ErrorNote error={overview.error} />
      {overview.data === undefined ? (overview.loading ? <Loading what="the charts" /> : null) : (
        <>
          <p class="muted small">
            {overview.data.from} to {overview.data.to} ({overview.data.timezone})
          </p>
          <Charts overview={overview.data} />
          <h3>Workouts</h3>
          <Workouts workouts={overview.data.workouts} />
          <h3>Daily scores</h3>
          <Scores scores={overview.data.scores} />
        </>
      )}

      <h2>Journal</h2>
      <ErrorNote error={journal.error} />
      {journal.data === undefined ?
        (journal.loading ? <Loading what="the journal" /> : null) :
        journal.data.data.length === 0
        ? <p class="muted">No journal entries.</p>
        : (
          <ul class="journal">
            {journal.data.data.map((entry) => (
              <li key={entry.id} class="card">
                {entry.imageUrl === null ?
                  null :
                  <img src={entry.imageUrl} alt={`Photo of ${entry.title ?? entry.kind}`} loading="lazy" />}
                <div>
                  <strong>{entry.title ?? entry.kind}</strong>
                  <div class="small muted">
                    <Time at={entry.consumedAtUtc} /> · {entry.kind}
                    {entry.energyKcal === null ? "" : ` · ${Math.round(entry.energyKcal)} kcal`}
                    {entry.analysisStatus === null || entry.analysisStatus === "None"
                      ? ""
                      : ` · analysis ${entry.analysisStatus}`}
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}

      {!erasing ? null : (
        <Confirm
          title="Erase this user?"
          confirmLabel="Erase user"
          typeToConfirm={user.externalUserId}
          onClose={() => setErasing(false)}
          onConfirm={() =>
            api.erase(user.id, user.externalUserId).then(() => navigate(`/portal/apps/${props.appId}/users`)).catch(
              (e) => {
                throw new Error(message(e))
              }
            )}
        >
          <p>
            The user, its connections (revoked at the providers), its data and photos are deleted. The API answers 404
            for it at once. This cannot be undone.
          </p>
        </Confirm>
      )}
    </section>
  )
}
