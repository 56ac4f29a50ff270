/**
 * The operators' overview: what needs a look, for one app or all of them. The counts come first, each a
 * button that opens its list below (paged by the server); every row links to the user's page or to the
 * app's webhook endpoints. The app and the list are in the address, so a reload or a shared link opens the
 * same view.
 */
import { useEffect } from "preact/hooks"
import type { ConnectionIssueKind, EndpointIssueKind, OverviewCounts } from "../api.js"
import { api } from "../api.js"
import { Badge, ErrorNote, Link, Loading, TableFrame, Time, toneOf, useLoad, usePager } from "../components.js"
import { navigate, useLocation } from "../router.js"

type ListKey =
  | { readonly _tag: "connections"; readonly kind: ConnectionIssueKind }
  | { readonly _tag: "quarantine" }
  | { readonly _tag: "endpoints"; readonly kind: EndpointIssueKind }

interface Stat {
  readonly id: string
  readonly label: string
  readonly list: ListKey
  readonly count: (counts: OverviewCounts) => number
  /** A count above zero is trouble (not so for active connections). */
  readonly trouble: boolean
}

const stats: ReadonlyArray<Stat> = [
  {
    id: "active",
    label: "Active connections",
    list: { _tag: "connections", kind: "active" },
    count: (c) => c.connections.active,
    trouble: false
  },
  {
    id: "reauthorize",
    label: "Waiting for reauthorization",
    list: { _tag: "connections", kind: "reauthorize" },
    count: (c) => c.connections.reauthorize,
    trouble: true
  },
  {
    id: "sync-error",
    label: "Sync errors",
    list: { _tag: "connections", kind: "sync-error" },
    count: (c) => c.connections.syncError,
    trouble: true
  },
  {
    id: "rate-limited",
    label: "Rate limited",
    list: { _tag: "connections", kind: "rate-limited" },
    count: (c) => c.connections.rateLimited,
    trouble: true
  },
  {
    id: "behind",
    label: "Behind on sync",
    list: { _tag: "connections", kind: "behind" },
    count: (c) => c.connections.behind,
    trouble: true
  },
  {
    id: "quarantine",
    label: "Quarantined records",
    list: { _tag: "quarantine" },
    count: (c) => c.quarantine.records,
    trouble: true
  },
  {
    id: "failing",
    label: "Failing endpoints",
    list: { _tag: "endpoints", kind: "failing" },
    count: (c) => c.webhookEndpoints.failing,
    trouble: true
  },
  {
    id: "paused",
    label: "Paused endpoints",
    list: { _tag: "endpoints", kind: "paused" },
    count: (c) => c.webhookEndpoints.paused,
    trouble: true
  },
  {
    id: "disabled",
    label: "Disabled endpoints",
    list: { _tag: "endpoints", kind: "disabled" },
    count: (c) => c.webhookEndpoints.disabled,
    trouble: true
  },
  {
    id: "backlog",
    label: "Pending deliveries",
    list: { _tag: "endpoints", kind: "backlog" },
    count: (c) => c.deliveries.pending,
    trouble: true
  }
]

const age = (seconds: number) =>
  seconds < 60
    ? `${seconds} s`
    : seconds < 3600
    ? `${Math.floor(seconds / 60)} min`
    : seconds < 172_800
    ? `${Math.floor(seconds / 3600)} h`
    : `${Math.floor(seconds / 86_400)} days`

const span = (seconds: number) =>
  seconds % 86_400 === 0
    ? `${seconds / 86_400} day${seconds === 86_400 ? "" : "s"}`
    : seconds % 3600 === 0
    ? `${seconds / 3600} h`
    : seconds % 60 === 0
    ? `${seconds / 60} min`
    : `${seconds} s`

const overviewPath = (app: string | undefined, list: string) => {
  const params = new URLSearchParams()
  if (app !== undefined) params.set("app", app)
  if (list !== "sync-error") params.set("list", list)
  const query = params.toString()
  return `/portal/overview${query === "" ? "" : `?${query}`}`
}

export const OverviewPage = () => {
  const location = useLocation()
  const params = new URLSearchParams(location.search)
  const app = params.get("app") ?? undefined
  const listId = params.get("list") ?? "sync-error"
  const stat = stats.find((s) => s.id === listId) ?? stats[2]!
  const apps = useLoad(() => api.apps(), [])
  const counts = useLoad(() => api.overviewCounts(app), [app])
  useEffect(() => void (document.title = "Overview · PulseBridge admin"), [])
  const appName = apps.data?.data.find((a) => a.id === app)?.name
  return (
    <section>
      <h1>Overview</h1>
      <div class="field inline">
        <label for="overview-app">App</label>
        <select
          id="overview-app"
          value={app ?? ""}
          onChange={(event) =>
            navigate(overviewPath(event.currentTarget.value === "" ? undefined : event.currentTarget.value, listId), {
              replace: true
            })}
        >
          <option value="">All apps</option>
          {(apps.data?.data ?? []).map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          {app !== undefined && apps.data !== undefined && appName === undefined
            ? <option value={app}>Unknown app</option>
            : null}
        </select>
      </div>
      <ErrorNote error={apps.error} />
      <ErrorNote error={counts.error} />
      {counts.data === undefined ? (counts.loading ? <Loading what="the overview" /> : null) : (
        <>
          <h2 id="overview-summary">Summary</h2>
          <p class="muted small">
            {app === undefined ? "All apps" : appName ?? app}. Behind on sync: no successful sync for over{" "}
            {counts.data.behindHours} hours. As of <Time at={counts.data.generatedAt} />.
          </p>
          <div class="stats" role="group" aria-labelledby="overview-summary">
            {stats.map((s) => {
              const count = s.count(counts.data!)
              return (
                <button
                  key={s.id}
                  type="button"
                  class={`stat${s.trouble && count > 0 ? " trouble" : ""}`}
                  aria-pressed={s.id === stat.id}
                  onClick={() => navigate(overviewPath(app, s.id), { replace: true })}
                >
                  <span class="stat-label">{s.label}</span> <span class="stat-count">{count}</span>
                </button>
              )
            })}
          </div>
          <p class="small">
            Quarantine: latest seen <Time at={counts.data.quarantine.latestAt} empty="none" />. Delivery backlog:{" "}
            {counts.data.deliveries.oldestPendingAgeSeconds === null
              ? "none"
              : `oldest waiting ${age(counts.data.deliveries.oldestPendingAgeSeconds)}`}.
          </p>
          <IssueList key={`${app ?? ""}|${stat.id}`} stat={stat} app={app} all={app === undefined} />
          <h2>Providers</h2>
          <TableFrame label="Providers">
            <table>
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Active connections</th>
                  <th scope="col">Rate limited</th>
                  <th scope="col">Waiting until</th>
                  <th scope="col">Documented budgets</th>
                </tr>
              </thead>
              <tbody>
                {counts.data.providers.map((p) => (
                  <tr key={p.provider}>
                    <td>{p.provider}</td>
                    <td>{p.active.toLocaleString()}</td>
                    <td>{p.rateLimited === 0 ? "0" : <Badge tone="warn">{p.rateLimited.toLocaleString()}</Badge>}</td>
                    <td>
                      <Time at={p.rateLimitedUntil} empty="—" />
                    </td>
                    <td class="small budgets">
                      {p.budgets.length === 0
                        ? <span class="muted">none published</span>
                        : p.budgets.map((b) =>
                          `${b.requests.toLocaleString()} per ${span(b.windowSeconds)} per ${b.per}`
                        )
                          .join("; ")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        </>
      )}
    </section>
  )
}

const userHref = (row: { readonly appId: string; readonly userId: string }) =>
  `/portal/apps/${row.appId}/users/${row.userId}`

const IssueList = (props: { readonly stat: Stat; readonly app: string | undefined; readonly all: boolean }) => {
  const { all, app, stat } = props
  return (
    <>
      <h2 id="overview-list">{stat.label}</h2>
      {stat.list._tag === "connections"
        ? <ConnectionList kind={stat.list.kind} label={stat.label} app={app} all={all} />
        : stat.list._tag === "quarantine"
        ? <QuarantineList label={stat.label} app={app} all={all} />
        : <EndpointList kind={stat.list.kind} label={stat.label} app={app} all={all} />}
    </>
  )
}

const ConnectionList = (
  props: {
    readonly kind: ConnectionIssueKind
    readonly label: string
    readonly app: string | undefined
    readonly all: boolean
  }
) => {
  const pager = usePager()
  const page = useLoad(() => api.overviewConnections(props.kind, props.app, pager.cursor), [pager.cursor])
  if (page.data === undefined) return page.loading ? <Loading what="the list" /> : <ErrorNote error={page.error} />
  if (page.data.data.length === 0) return <p class="muted">None.</p>
  return (
    <>
      <ErrorNote error={page.error} />
      <TableFrame label={props.label}>
        <table>
          <thead>
            <tr>
              <th scope="col">User</th>
              {props.all ? <th scope="col">App</th> : null}
              <th scope="col">Provider</th>
              <th scope="col">Status</th>
              <th scope="col">Sync</th>
              <th scope="col">Detail</th>
              <th scope="col">Last synced</th>
            </tr>
          </thead>
          <tbody>
            {page.data.data.map((row) => (
              <tr key={row.connectionId}>
                <td>
                  <Link href={userHref(row)}>{row.externalUserId}</Link>
                </td>
                {props.all ? <td>{row.appName}</td> : null}
                <td>{row.provider}</td>
                <td>
                  <Badge tone={toneOf(row.status)}>{row.status}</Badge>
                </td>
                <td>
                  <Badge tone={toneOf(row.syncState)}>{row.syncState}</Badge>
                </td>
                <td class="small detail">
                  {row.statusReason ?? row.syncError ?? null}
                  {row.rateLimitedUntil === null ? null : (
                    <>
                      {" "}Until <Time at={row.rateLimitedUntil} />
                    </>
                  )}
                </td>
                <td>
                  <Time at={row.lastSyncedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {pager.controls(page.data.nextCursor)}
    </>
  )
}

const QuarantineList = (props: { readonly label: string; readonly app: string | undefined; readonly all: boolean }) => {
  const pager = usePager()
  const page = useLoad(() => api.overviewQuarantine(props.app, pager.cursor), [pager.cursor])
  if (page.data === undefined) return page.loading ? <Loading what="the list" /> : <ErrorNote error={page.error} />
  if (page.data.data.length === 0) return <p class="muted">None.</p>
  return (
    <>
      <TableFrame label={props.label}>
        <table>
          <thead>
            <tr>
              <th scope="col">User</th>
              {props.all ? <th scope="col">App</th> : null}
              <th scope="col">Provider</th>
              <th scope="col">Kind</th>
              <th scope="col">Record</th>
              <th scope="col">Reason</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {page.data.data.map((row) => (
              <tr key={`${row.connectionId}|${row.kind}|${row.providerRecordId}|${row.lastSeenAt}`}>
                <td>
                  <Link href={userHref(row)}>{row.externalUserId}</Link>
                </td>
                {props.all ? <td>{row.appName}</td> : null}
                <td>{row.provider}</td>
                <td>{row.kind}</td>
                <td>
                  <code>{row.providerRecordId ?? "unreadable id"}</code>
                </td>
                <td class="small detail">{row.reason}</td>
                <td>
                  <Time at={row.lastSeenAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {pager.controls(page.data.nextCursor)}
    </>
  )
}

const EndpointList = (
  props: {
    readonly kind: EndpointIssueKind
    readonly label: string
    readonly app: string | undefined
    readonly all: boolean
  }
) => {
  const pager = usePager()
  const page = useLoad(() => api.overviewEndpoints(props.kind, props.app, pager.cursor), [pager.cursor])
  if (page.data === undefined) return page.loading ? <Loading what="the list" /> : <ErrorNote error={page.error} />
  if (page.data.data.length === 0) return <p class="muted">None.</p>
  const now = Date.now()
  return (
    <>
      <TableFrame label={props.label}>
        <table>
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              {props.all ? <th scope="col">App</th> : null}
              <th scope="col">State</th>
              <th scope="col">Last error</th>
              <th scope="col">Pending</th>
              <th scope="col">Oldest pending</th>
            </tr>
          </thead>
          <tbody>
            {page.data.data.map((row) => (
              <tr key={row.endpointId}>
                <td class="url endpoint">
                  <Link href={`/portal/apps/${row.appId}/webhooks`}>{row.url}</Link>
                </td>
                {props.all ? <td>{row.appName}</td> : null}
                <td class="small">
                  {!row.enabled
                    ? <Badge tone="bad">Disabled</Badge>
                    : row.pausedUntil !== null && Date.parse(row.pausedUntil) > now
                    ? <Badge tone="warn">Paused</Badge>
                    : row.failingSince !== null
                    ? <Badge tone="bad">Failing</Badge>
                    : <Badge tone="ok">Enabled</Badge>}
                  {row.disabledReason === null ? null : <div>{row.disabledReason}</div>}
                  {row.failingSince === null ? null : (
                    <div>
                      Failing since <Time at={row.failingSince} />, {row.failureStreak} in a row
                    </div>
                  )}
                  {row.pausedUntil === null || Date.parse(row.pausedUntil) <= now ? null : (
                    <div>
                      Paused until <Time at={row.pausedUntil} />
                    </div>
                  )}
                </td>
                <td class="small detail">
                  {row.lastError === null ? <span class="muted">none recorded</span> : (
                    <>
                      {row.lastStatusCode === null ? null : <code>{row.lastStatusCode}</code>} {row.lastError}
                      {row.lastErrorAt === null ? null : (
                        <div>
                          <Time at={row.lastErrorAt} />
                        </div>
                      )}
                    </>
                  )}
                </td>
                <td>{row.pending.toLocaleString()}</td>
                <td>
                  <Time at={row.oldestPendingAt} empty="—" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {pager.controls(page.data.nextCursor)}
    </>
  )
}
