/**
 * The audit log: who did what, to what, when, newest first and paged. Each actor, app and subject is named
 * (and linked to its page where it has one), each detail is a short line with its JSON a click away, and
 * times are shown in full in the browser's time zone. The filters live in the address (a shared link or an
 * operator's link opens the same view), and the same filters export the log as CSV or JSON Lines.
 */
import { useEffect, useState } from "preact/hooks"
import type { AuditActorType, AuditEvent, AuditFilters } from "../api.js"
import { api } from "../api.js"
import { ErrorNote, Link, Loading, TableFrame, useLoad, usePager } from "../components.js"
import { navigate, useLocation } from "../router.js"

const actorTypes: ReadonlyArray<readonly [AuditActorType, string]> = [
  ["operator", "Operator"],
  ["cli", "CLI"],
  ["apiKey", "API key"],
  ["anonymous", "Anonymous"]
]
const actorTypeLabel = (type: string) => actorTypes.find(([value]) => value === type)?.[1] ?? type

/** The actions the server records (docs/portal.md). */
const actions = [
  "login",
  "login.failed",
  "logout",
  "operator.create",
  "operator.setup",
  "operator.setup.failed",
  "operator.disable",
  "operator.enable",
  "operator.role",
  "operator.password.reset",
  "operator.password.change",
  "operator.password.change.failed",
  "operator.secondFactor.enable",
  "operator.secondFactor.disable",
  "operator.secondFactor.reset",
  "settings.update",
  "app.create",
  "app.rename",
  "app.assistantSignIn",
  "apiKey.create",
  "apiKey.revoke",
  "providerCredentials.create",
  "providerCredentials.replace",
  "webhookEndpoint.create",
  "webhookEndpoint.update",
  "webhookDelivery.retry",
  "connection.resync",
  "user.export",
  "user.erase",
  "sandbox.testUser",
  "sandbox.connect",
  "sandbox.faults.set"
]

const filterKeys = ["actorType", "operatorId", "action", "appId", "from", "to"] as const

const filtersOf = (search: string): AuditFilters => {
  const params = new URLSearchParams(search)
  const filters: Record<string, string> = {}
  for (const key of filterKeys) {
    const value = params.get(key)
    if (value !== null && value !== "") filters[key] = value
  }
  return filters
}

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
const dateOnly = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" })
const timeAndZone = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZoneName: "short"
})

/**
 * The date, the time with seconds and the zone, in the browser's zone (on two lines); the UTC instant in
 * `datetime` and the tooltip.
 */
const FullTime = (props: { readonly at: string }) => {
  const date = new Date(props.at)
  return (
    <time class="full" dateTime={props.at} title={`${props.at} (UTC)`}>
      <span>{dateOnly.format(date)}</span> <span>{timeAndZone.format(date)}</span>
    </time>
  )
}

/** An instant as a `datetime-local` input shows it: the browser's own zone, to the second. */
const toLocalInput = (iso: string | undefined) => {
  if (iso === undefined) return ""
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ""
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${
    pad(date.getMinutes())
  }:${pad(date.getSeconds())}`
}

/** A `datetime-local` value (the browser's zone) as an ISO instant in UTC, or undefined when empty. */
const fromLocalInput = (value: string) => {
  if (value === "") return undefined
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

const Name = (props: { readonly name: { readonly label: string; readonly href: string | null } | null }) =>
  props.name === null
    ? <span class="muted">—</span>
    : props.name.href === null
    ? <span>{props.name.label}</span>
    : <Link href={props.name.href}>{props.name.label}</Link>

const Filters = (props: { readonly filters: AuditFilters }) => {
  const operators = useLoad(() => api.operators(), [])
  const apps = useLoad(() => api.apps(), [])
  const [actorType, setActorType] = useState(props.filters.actorType ?? "")
  const [operatorId, setOperatorId] = useState(props.filters.operatorId ?? "")
  const [action, setAction] = useState(props.filters.action ?? "")
  const [appId, setAppId] = useState(props.filters.appId ?? "")
  const [from, setFrom] = useState(toLocalInput(props.filters.from))
  const [to, setTo] = useState(toLocalInput(props.filters.to))
  const knownActions = props.filters.action === undefined || actions.includes(props.filters.action)
    ? actions
    : [...actions, props.filters.action]
  const apply = () => {
    const params = new URLSearchParams()
    const chosen: Record<string, string | undefined> = {
      actorType,
      operatorId,
      action,
      appId,
      from: fromLocalInput(from),
      to: fromLocalInput(to)
    }
    for (const key of filterKeys) {
      const value = chosen[key]
      if (value !== undefined && value !== "") params.set(key, value)
    }
    const search = params.toString()
    navigate(search === "" ? "/portal/audit" : `/portal/audit?${search}`)
  }
  return (
    <form
      class="inline filters card"
      aria-label="Filter the audit log"
      onSubmit={(event) => {
        event.preventDefault()
        apply()
      }}
    >
      <div class="field">
        <label for="audit-actor-type">Actor type</label>
        <select id="audit-actor-type" value={actorType} onChange={(e) => setActorType(e.currentTarget.value)}>
          <option value="">Any</option>
          {actorTypes.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
        </select>
      </div>
      <div class="field">
        <label for="audit-operator">Operator</label>
        <select id="audit-operator" value={operatorId} onChange={(e) => setOperatorId(e.currentTarget.value)}>
          <option value="">Any</option>
          {(operators.data?.data ?? []).map((operator) => (
            <option key={operator.id} value={operator.id}>{operator.email}</option>
          ))}
          {operatorId !== "" && operators.data !== undefined && !operators.data.data.some((o) => o.id === operatorId)
            ? <option value={operatorId}>{operatorId}</option>
            : null}
        </select>
      </div>
      <div class="field">
        <label for="audit-action">Action</label>
        <select id="audit-action" value={action} onChange={(e) => setAction(e.currentTarget.value)}>
          <option value="">Any</option>
          {knownActions.map((name) => <option key={name} value={name}>{name}</option>)}
        </select>
      </div>
      <div class="field">
        <label for="audit-app">App</label>
        <select id="audit-app" value={appId} onChange={(e) => setAppId(e.currentTarget.value)}>
          <option value="">Any</option>
          {(apps.data?.data ?? []).map((app) => <option key={app.id} value={app.id}>{app.name}</option>)}
          {appId !== "" && apps.data !== undefined && !apps.data.data.some((a) => a.id === appId)
            ? <option value={appId}>{appId}</option>
            : null}
        </select>
      </div>
      <div class="field">
        <label for="audit-from">From</label>
        <input
          id="audit-from"
          type="datetime-local"
          step="1"
          value={from}
          onInput={(e) => setFrom(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="audit-to">To</label>
        <input id="audit-to" type="datetime-local" step="1" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
      </div>
      <div class="actions">
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={() => navigate("/portal/audit")}>Clear</button>
      </div>
      <ErrorNote error={operators.error ?? apps.error} />
    </form>
  )
}

const Row = (props: { readonly event: AuditEvent }) => {
  const { event } = props
  return (
    <tr>
      <td class="small">
        <FullTime at={event.at} />
      </td>
      <td class="small">{actorTypeLabel(event.actorType)}</td>
      <td class="small actor">
        <Name name={event.actor} />
        {event.address !== null && event.actorType !== "anonymous"
          ? <div class="muted">from {event.address}</div>
          : null}
      </td>
      <td>
        <code class="small nowrap">{event.action}</code>
      </td>
      <td class="small">
        <Name name={event.app} />
      </td>
      <td class="small subject">
        <Name name={event.subject} />
      </td>
      <td class="small detail">
        {event.summary === "" ? <span class="muted">—</span> : <span>{event.summary}</span>}
        {Object.keys(event.detail).length === 0 ? null : (
          <details>
            <summary>Raw JSON</summary>
            <pre>{JSON.stringify(event.detail, null, 2)}</pre>
          </details>
        )}
      </td>
    </tr>
  )
}

const Events = (props: { readonly filters: AuditFilters }) => {
  const pager = usePager()
  const events = useLoad(() => api.audit(props.filters, pager.cursor), [pager.cursor])
  const filtered = Object.keys(props.filters).length > 0
  return (
    <>
      <ErrorNote error={events.error} />
      {events.data === undefined ? (events.loading ? <Loading what="the audit log" /> : null) : (
        <>
          {events.data.data.length === 0 ?
            <p class="muted">{filtered ? "No event matches these filters." : "Nothing recorded yet."}</p> :
            (
              <TableFrame label="Audit events">
                <table>
                  <caption class="sr-only">Audit events, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Actor type</th>
                      <th scope="col">Actor</th>
                      <th scope="col">Action</th>
                      <th scope="col">App</th>
                      <th scope="col">Subject</th>
                      <th scope="col">Details</th>
                    </tr>
                  </thead>
                  <tbody>
                    {events.data.data.map((event) => <Row key={event.id} event={event} />)}
                  </tbody>
                </table>
              </TableFrame>
            )}
          {pager.controls(events.data.nextCursor)}
        </>
      )}
    </>
  )
}

export const AuditPage = () => {
  const location = useLocation()
  const filters = filtersOf(location.search)
  useEffect(() => void (document.title = "Audit log · PulseBridge admin"), [])
  return (
    <section>
      <h1>Audit log</h1>
      <p class="muted small">Newest first. Times in your time zone ({zone}); hover a time for UTC.</p>
      <Filters key={location.search} filters={filters} />
      <p class="actions">
        <a class="button secondary" href={api.auditExportUrl("csv", filters)} download>Export CSV</a>
        <a class="button secondary" href={api.auditExportUrl("jsonl", filters)} download>Export JSON Lines</a>
      </p>
      <Events key={location.search} filters={filters} />
    </section>
  )
}
