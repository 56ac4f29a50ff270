/**
 * One user: connections (status, sync state and progress, last error, quarantined records, re-sync);
 * over a range kept in the address (the last 7, 14, 30 or 90 days, or custom dates), the user's
 * activity, glucose with its target band and time in range, sleep, workouts, recovery and body
 * measurements, each with one series per provider; daily scores with their factor breakdown; journal
 * entries with their photos; export and erasure. While a connection syncs, the page refreshes itself,
 * so a backfill is seen arriving. Each section is a file of `user/`.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type { UserOverview } from "../api.js"
import { api } from "../api.js"
import { Badge, Confirm, ErrorNote, Link, Loading, message, Time, toneOf, useLoad } from "../components.js"
import { navigate, useLocation } from "../router.js"
import { ActivitySection } from "./user/ActivitySection.js"
import { BodySection } from "./user/BodySection.js"
import { Connections, SandboxConnect, syncing } from "./user/Connections.js"
import { GlucoseSection } from "./user/GlucoseSection.js"
import { rangeOf, RangePicker } from "./user/RangePicker.js"
import { RecoverySection } from "./user/RecoverySection.js"
import { Scores } from "./user/Scores.js"
import { colorsOf, daysOf } from "./user/series.js"
import { SleepSection } from "./user/SleepSection.js"
import "./user/user.css"

const HealthData = (props: { readonly overview: UserOverview; readonly providers: ReadonlyArray<string> }) => {
  const { overview } = props
  const days = useMemo(() => daysOf(overview.from, overview.to), [overview.from, overview.to])
  // Every provider keeps one colour across the page's charts.
  const colors = useMemo(() =>
    colorsOf([
      ...props.providers,
      ...[
        overview.dailyActivity,
        overview.dailyLoad,
        overview.glucose,
        overview.sleep,
        overview.recovery,
        overview.body
      ]
        .flatMap((list: ReadonlyArray<{ readonly provider: string }>) => list.map((r) => r.provider))
    ]), [overview, props.providers.join()])
  return (
    <div class="user-data">
      <ActivitySection overview={overview} days={days} colors={colors} />
      <GlucoseSection overview={overview} colors={colors} />
      <SleepSection overview={overview} days={days} colors={colors} />
      <RecoverySection overview={overview} days={days} colors={colors} />
      <BodySection overview={overview} colors={colors} />
      <section aria-labelledby="scores-heading">
        <h3 id="scores-heading">Daily scores</h3>
        <Scores scores={overview.scores} />
      </section>
    </div>
  )
}

export const UserPage = (props: { readonly appId: string; readonly userId: string; readonly sandbox: boolean }) => {
  const isAdmin = useIsAdmin()
  const location = useLocation()
  const range = rangeOf(location.search)
  const detail = useLoad(() => api.user(props.userId), [props.userId])
  const overview = useLoad(() => api.overview(props.userId, range), [props.userId, location.search])
  const shown = overview.data === undefined ? undefined : { from: overview.data.from, to: overview.data.to }
  const journal = useLoad(
    () => shown === undefined ? Promise.resolve(undefined) : api.journal(props.userId, shown.from, shown.to),
    [props.userId, shown?.from, shown?.to]
  )
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

      <h2>Health data</h2>
      <RangePicker key={location.search} path={location.path} range={range} shown={shown} />
      <ErrorNote error={overview.error} />
      {overview.data === undefined ? (overview.loading ? <Loading what="the charts" /> : null) : (
        <>
          <p class="muted small" role="status">
            {overview.data.from} to {overview.data.to}: {overview.data.days} days ({overview.data.timezone})
            {overview.loading ? " · updating…" : ""}
          </p>
          <HealthData overview={overview.data} providers={connections.map((c) => c.provider)} />
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
