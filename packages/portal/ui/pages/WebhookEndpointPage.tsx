/**
 * One webhook endpoint (`/portal/apps/:appId/webhooks/:endpointId?status=&eventType=`): first how it fares (its
 * last error and last success, read apart from the log, so a first page of deliveries still waiting behind a
 * failing one hides neither), then what an operator does to it (a test event, a new signing secret shown once,
 * disable or enable, delete), the event types it takes, and its deliveries, filtered by status and event type
 * (kept in the address), each opening its payload and attempts, with a retry.
 */
import { useEffect, useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type {
  DeliveryAttempt,
  DeliveryFilters,
  DeliveryStatus,
  EndpointDetail,
  RotatedWebhookSecret,
  WebhookDelivery,
  WebhookEventType
} from "../api.js"
import { api, deliveryStatuses, query, webhookEventTypes } from "../api.js"
import {
  Badge,
  Confirm,
  CopyButton,
  ErrorNote,
  Link,
  Loading,
  TableFrame,
  Time,
  toneOf,
  useLoad,
  usePager
} from "../components.js"
import { navigate, useLocation } from "../router.js"

/** The receiver's answer to an attempt in a few words: its status code, or that none came. */
const answerOf = (attempt: { readonly statusCode: number | null }) =>
  attempt.statusCode === null ? "no answer" : `HTTP ${attempt.statusCode}`

const AttemptLine = (props: { readonly attempt: DeliveryAttempt | null; readonly none: string }) => {
  const { attempt } = props
  if (attempt === null) return <p class="muted">{props.none}</p>
  return (
    <>
      <p>
        <Time at={attempt.attemptedAt} /> · <strong>{answerOf(attempt)}</strong> · <code>{attempt.eventType}</code>
      </p>
      {attempt.error === null ? null : <p class="note error">{attempt.error}</p>}
    </>
  )
}

/** How the endpoint fares, whatever its first page of deliveries holds; the failing delivery opens below. */
const Health = (props: { readonly appId: string; readonly detail: EndpointDetail }) => {
  const { detail } = props
  const { endpoint, lastError } = detail
  const [open, setOpen] = useState(false)
  return (
    <section aria-label="Endpoint health">
      <div class="grid">
        <div class="card">
          <h2 class="small">Last error</h2>
          <AttemptLine attempt={lastError} none="No attempt has failed." />
          {lastError === null ?
            null :
            (
              <button type="button" class="secondary small" aria-expanded={open} onClick={() => setOpen(!open)}>
                {open ? "Hide its delivery" : "Show its delivery"}
              </button>
            )}
        </div>
        <div class="card">
          <h2 class="small">Last success</h2>
          <AttemptLine attempt={detail.lastSuccess} none="No delivery has succeeded yet." />
        </div>
        <div class="card">
          <h2 class="small">State</h2>
          <p>
            {endpoint.failingSince === null
              ? "Deliveries succeed."
              : (
                <>
                  Failing since{" "}
                  <Time at={endpoint.failingSince} />. If it still fails 5 days after that, it is disabled.
                </>
              )}
          </p>
          <p>
            {detail.pending} {detail.pending === 1 ? "delivery" : "deliveries"} waiting
            {detail.pausedUntil === null ? null : (
              <>
                ; paused after failures in a row until <Time at={detail.pausedUntil} />
              </>
            )}
          </p>
        </div>
      </div>
      {lastError !== null && open
        ? (
          <div class="card" role="region" aria-label="Delivery of the last error">
            <h3>
              Delivery of the last error: <code>{lastError.eventType}</code>
            </h3>
            <DeliveryView
              appId={props.appId}
              endpointId={endpoint.id}
              deliveryId={lastError.deliveryId}
              name={`${lastError.eventType} of the last error`}
            />
          </div>
        )
        : null}
    </section>
  )
}

/** The event types the endpoint takes, as checkboxes; at least one. */
const EventTypes = (
  props: { readonly appId: string; readonly detail: EndpointDetail; readonly onSaved: () => void }
) => {
  const isAdmin = useIsAdmin()
  const [chosen, setChosen] = useState<ReadonlyArray<WebhookEventType>>(props.detail.endpoint.events)
  const [error, setError] = useState<unknown>(undefined)
  const [saved, setSaved] = useState("")
  useEffect(() => setChosen(props.detail.endpoint.events), [props.detail.endpoint.events.join(",")])
  return (
    <form
      class="card"
      onSubmit={(event) => {
        event.preventDefault()
        setError(undefined)
        setSaved("")
        api.updateWebhook(props.appId, props.detail.endpoint.id, { events: chosen }).then(() => {
          setSaved("Event types saved.")
          props.onSaved()
        }, setError)
      }}
    >
      <fieldset disabled={!isAdmin}>
        <legend class="sr-only">Event types</legend>
        {webhookEventTypes.map((type) => (
          <label class="check" key={type}>
            <input
              type="checkbox"
              checked={chosen.includes(type)}
              onChange={(event) =>
                setChosen(
                  event.currentTarget.checked
                    ? webhookEventTypes.filter((t) => t === type || chosen.includes(t))
                    : chosen.filter((t) => t !== type)
                )}
            />
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <div class="actions" hidden={!isAdmin}>
        <button type="submit" class="secondary" disabled={chosen.length === 0}>Save event types</button>
        {chosen.length === 0 ? <span class="muted small">Choose at least one.</span> : null}
        <span class="muted small" role="status">{saved}</span>
      </div>
      <ErrorNote error={error} />
    </form>
  )
}

/** A delivery's payload and each of its attempts. */
const DeliveryView = (props: {
  readonly appId: string
  readonly endpointId: string
  readonly deliveryId: string
  readonly name: string
}) => {
  const detail = useLoad(
    () => api.delivery(props.appId, props.endpointId, props.deliveryId),
    [props.appId, props.endpointId, props.deliveryId]
  )
  if (detail.data === undefined) {
    return detail.loading ? <Loading what="the delivery" /> : <ErrorNote error={detail.error} />
  }
  const { attempts, delivery, payload } = detail.data
  return (
    <div class="delivery-detail">
      <h4>Attempts</h4>
      {attempts.length === 0
        ? (
          <p class="muted small">
            Not attempted yet
            {delivery.nextAttemptAt === null ? "." : (
              <>
                ; due <Time at={delivery.nextAttemptAt} />, after the earlier deliveries of its user.
              </>
            )}
          </p>
        )
        : (
          <TableFrame label={`Attempts of ${props.name}`}>
            <table class="attempts">
              <caption class="sr-only">Attempts of this delivery</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Status code</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {attempts.map((attempt, index) => (
                  <tr key={index}>
                    <td>
                      <Time at={attempt.attemptedAt} />
                    </td>
                    <td class="num">{attempt.statusCode ?? <span class="muted">none</span>}</td>
                    <td class="error-text">{attempt.error ?? <span class="muted">delivered</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      {delivery.status === "Pending" && attempts.length > 0 && delivery.nextAttemptAt !== null
        ? (
          <p class="muted small">
            Next attempt <Time at={delivery.nextAttemptAt} />.
          </p>
        )
        : null}
      <h4>Payload</h4>
      <pre class="payload" tabIndex={0} role="region" aria-label={`Payload of ${props.name}`}>
        {JSON.stringify(payload, null, 2)}
      </pre>
    </div>
  )
}

const DeliveryRows = (props: {
  readonly appId: string
  readonly endpointId: string
  readonly delivery: WebhookDelivery
  readonly onRetried: () => void
  readonly onError: (error: unknown) => void
}) => {
  const isAdmin = useIsAdmin()
  const { delivery } = props
  const [open, setOpen] = useState(false)
  const name = `${delivery.eventType} of ${new Date(delivery.createdAt).toLocaleString()}`
  return (
    <>
      <tr>
        <td>
          <code class="small nowrap">{delivery.eventType}</code>
        </td>
        <td>
          <Badge tone={toneOf(delivery.status)}>{delivery.status}</Badge>
        </td>
        <td class="num">{delivery.attempts}</td>
        <td class="error-text small">
          {delivery.attempts === 0
            ? <span class="muted">not attempted</span>
            : delivery.lastError ?? answerOf({ statusCode: delivery.lastStatusCode })}
        </td>
        <td>
          <Time at={delivery.createdAt} />
        </td>
        <td>
          <div class="actions tight">
            <button
              type="button"
              class="secondary small"
              aria-expanded={open}
              aria-label={`${open ? "Hide" : "Show"} details of ${name}`}
              onClick={() => setOpen(!open)}
            >
              {open ? "Hide" : "Details"}
            </button>
            <button
              hidden={!isAdmin}
              type="button"
              class="secondary small"
              aria-label={`Retry ${name}`}
              onClick={() => {
                props.onError(undefined)
                api.retryDelivery(props.appId, props.endpointId, delivery.id).then(props.onRetried, props.onError)
              }}
            >
              Retry
            </button>
          </div>
        </td>
      </tr>
      {open
        ? (
          <tr class="delivery-detail">
            <td colSpan={6}>
              <div role="region" aria-label={`Details of ${name}`}>
                <DeliveryView appId={props.appId} endpointId={props.endpointId} deliveryId={delivery.id} name={name} />
              </div>
            </td>
          </tr>
        )
        : null}
    </>
  )
}

const Deliveries = (props: {
  readonly appId: string
  readonly endpointId: string
  readonly filters: DeliveryFilters
  readonly onChanged: () => void
}) => {
  const pager = usePager()
  const deliveries = useLoad(
    () => api.deliveries(props.appId, props.endpointId, props.filters, pager.cursor),
    [props.appId, props.endpointId, props.filters.status, props.filters.eventType, pager.cursor]
  )
  const [error, setError] = useState<unknown>(undefined)
  if (deliveries.data === undefined) {
    return deliveries.loading ? <Loading what="deliveries" /> : <ErrorNote error={deliveries.error} />
  }
  const filtered = props.filters.status !== undefined || props.filters.eventType !== undefined
  return (
    <div>
      <ErrorNote error={error} />
      {deliveries.data.data.length === 0
        ? <p class="muted">{filtered ? "No deliveries match these filters." : "No deliveries yet."}</p>
        : (
          <TableFrame label="Deliveries">
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.data.map((delivery) => (
                  <DeliveryRows
                    key={delivery.id}
                    appId={props.appId}
                    endpointId={props.endpointId}
                    delivery={delivery}
                    onError={setError}
                    onRetried={() => {
                      deliveries.reload()
                      props.onChanged()
                    }}
                  />
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      {pager.controls(deliveries.data.nextCursor)}
    </div>
  )
}

/** The filters of the address, unknown values left out. */
const filtersOf = (search: string): DeliveryFilters => {
  const params = new URLSearchParams(search)
  const status = deliveryStatuses.find((s) => s === params.get("status"))
  const eventType = webhookEventTypes.find((t) => t === params.get("eventType"))
  return { status, eventType }
}

export const WebhookEndpointPage = (props: { readonly appId: string; readonly endpointId: string }) => {
  const isAdmin = useIsAdmin()
  const { appId, endpointId } = props
  const location = useLocation()
  const filters = filtersOf(location.search)
  const app = useLoad(() => api.app(appId), [appId])
  const detail = useLoad(() => api.webhook(appId, endpointId), [appId, endpointId])
  const [error, setError] = useState<unknown>(undefined)
  const [status, setStatus] = useState("")
  const [secret, setSecret] = useState<RotatedWebhookSecret | undefined>(undefined)
  const [confirming, setConfirming] = useState<"rotate" | "delete" | undefined>(undefined)
  const listHref = `/portal/apps/${appId}/webhooks`
  useEffect(() => {
    if (detail.data !== undefined) document.title = `Webhook endpoint ${detail.data.endpoint.url} · PulseBridge admin`
  }, [detail.data?.endpoint.url])

  const crumbs = (
    <p class="crumbs">
      <Link href="/portal">Apps</Link> / <Link href={`/portal/apps/${appId}`}>{app.data?.name ?? "App"}</Link> /{" "}
      <Link href={listHref}>Webhook endpoints</Link>
    </p>
  )
  if (detail.data === undefined) {
    return (
      <section>
        {crumbs}
        {detail.loading ? <Loading what="the endpoint" /> : <ErrorNote error={detail.error} />}
      </section>
    )
  }
  const { endpoint } = detail.data
  // From the address as it is now, not as it was when the page last rendered: two filters changed one right after
  // the other would otherwise lose the first.
  const setFilter = (key: keyof DeliveryFilters, value: string) =>
    navigate(
      `/portal/apps/${appId}/webhooks/${endpointId}${
        query({ ...filtersOf(window.location.search), [key]: value === "" ? undefined : value })
      }`,
      { replace: true }
    )
  return (
    <section>
      {crumbs}
      <div class="title-row">
        <h1 class="url">{endpoint.url}</h1>
        {endpoint.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="bad">disabled</Badge>}
        {endpoint.failingSince === null ? null : <Badge tone="bad">failing</Badge>}
      </div>
      {endpoint.description === null ? null : <p>{endpoint.description}</p>}
      {endpoint.disabledReason === null ? null : <p class="note warn">{endpoint.disabledReason}</p>}
      <p class="muted small">
        Endpoint id <code>{endpoint.id}</code> · created <Time at={endpoint.createdAt} />
      </p>

      <Health appId={appId} detail={detail.data} />

      {secret === undefined ? null : (
        <div class="card reveal" role="region" aria-label="New signing secret">
          <p class="note warn">
            Copy the new signing secret now: it is shown only this once. Until{" "}
            <Time at={secret.previousSecretExpiresAt} />, every delivery is signed with the previous secret too.
          </p>
          <p>
            <code class="secret">{secret.secret}</code>
          </p>
          <CopyButton text={secret.secret} label="Copy secret" />{" "}
          <button type="button" class="secondary small" onClick={() => setSecret(undefined)}>I have copied it</button>
        </div>
      )}
      <div class="actions" hidden={!isAdmin}>
        <button
          type="button"
          class="secondary"
          disabled={!endpoint.enabled}
          onClick={() => {
            setError(undefined)
            setStatus("")
            api.testWebhook(appId, endpointId).then((sent) => {
              setStatus(`Test event ${sent.eventId} queued.`)
              detail.reload()
            }, setError)
          }}
        >
          Send test event
        </button>
        <button type="button" class="secondary" onClick={() => setConfirming("rotate")}>Rotate secret</button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setError(undefined)
            setStatus("")
            api.updateWebhook(appId, endpointId, { enabled: !endpoint.enabled }).then(detail.reload, setError)
          }}
        >
          {endpoint.enabled ? "Disable" : "Enable"}
        </button>
        <button type="button" class="danger" onClick={() => setConfirming("delete")}>Delete endpoint</button>
        <span class="muted small" role="status">{status}</span>
      </div>
      <ErrorNote error={error} />
      {confirming === "rotate"
        ? (
          <Confirm
            title="Rotate the signing secret?"
            confirmLabel="Rotate secret"
            onClose={() => setConfirming(undefined)}
            onConfirm={() =>
              api.rotateWebhookSecret(appId, endpointId).then((rotated) => {
                setSecret(rotated)
                detail.reload()
              })}
          >
            <p>
              A new secret signs every delivery from now on. The current one keeps signing beside it for 24 hours, so
              the receiver can move to the new one.
            </p>
          </Confirm>
        )
        : confirming === "delete"
        ? (
          <Confirm
            title="Delete this endpoint?"
            confirmLabel="Delete endpoint"
            onClose={() => setConfirming(undefined)}
            onConfirm={() => api.deleteWebhook(appId, endpointId).then(() => navigate(listHref))}
          >
            <p>
              <code>{endpoint.url}</code> gets no more events, and its deliveries, waiting ones included, are deleted.
            </p>
          </Confirm>
        )
        : null}

      <h2>Event types</h2>
      <EventTypes appId={appId} detail={detail.data} onSaved={detail.reload} />

      <h2>Deliveries</h2>
      <form class="inline filters" aria-label="Delivery filters" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="delivery-status">Status</label>
          <select
            id="delivery-status"
            value={filters.status ?? ""}
            onChange={(event) => setFilter("status", event.currentTarget.value)}
          >
            <option value="">Any status</option>
            {deliveryStatuses.map((s: DeliveryStatus) => <option key={s} value={s}>{s}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="delivery-event-type">Event type</label>
          <select
            id="delivery-event-type"
            value={filters.eventType ?? ""}
            onChange={(event) => setFilter("eventType", event.currentTarget.value)}
          >
            <option value="">Any event type</option>
            {webhookEventTypes.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </div>
      </form>
      <Deliveries
        key={`${filters.status ?? ""}|${filters.eventType ?? ""}`}
        appId={appId}
        endpointId={endpointId}
        filters={filters}
        onChanged={detail.reload}
      />
    </section>
  )
}
