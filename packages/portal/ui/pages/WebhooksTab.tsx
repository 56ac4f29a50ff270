/**
 * An app's webhook endpoints: create one (its signing secret shown once), enable or disable it, and
 * look at its deliveries, each with its status and a retry button.
 */
import { useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type { WebhookEndpoint } from "../api.js"
import { api } from "../api.js"
import {
  Badge,
  CopyButton,
  ErrorNote,
  Field,
  Loading,
  TableFrame,
  Time,
  toneOf,
  useLoad,
  usePager
} from "../components.js"

const Deliveries = (props: { readonly appId: string; readonly endpoint: WebhookEndpoint }) => {
  const isAdmin = useIsAdmin()
  const pager = usePager()
  const deliveries = useLoad(
    () => api.deliveries(props.appId, props.endpoint.id, pager.cursor),
    [props.appId, props.endpoint.id, pager.cursor]
  )
  const [error, setError] = useState<unknown>(undefined)
  if (deliveries.data === undefined) {
    return deliveries.loading ? <Loading what="deliveries" /> : <ErrorNote error={deliveries.error} />
  }
  return (
    <div>
      <ErrorNote error={error} />
      {deliveries.data.data.length === 0 ? <p class="muted">No deliveries yet.</p> : (
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
                <tr key={delivery.id}>
                  <td>
                    <code class="small">{delivery.eventType}</code>
                  </td>
                  <td>
                    <Badge tone={toneOf(delivery.status)}>{delivery.status}</Badge>
                  </td>
                  <td class="num">{delivery.attempts}</td>
                  <td class="small">
                    {delivery.lastStatusCode ?? ""} {delivery.lastError ?? ""}
                  </td>
                  <td>
                    <Time at={delivery.createdAt} />
                  </td>
                  <td>
                    {delivery.status === "Delivered" || !isAdmin ? null : (
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Retry delivery of ${delivery.eventType}`}
                        onClick={() => {
                          setError(undefined)
                          api.retryDelivery(props.appId, props.endpoint.id, delivery.id).then(
                            deliveries.reload,
                            setError
                          )
                        }}
                      >
                        Retry
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
      {pager.controls(deliveries.data.nextCursor)}
    </div>
  )
}

export const WebhooksTab = (props: { readonly appId: string }) => {
  const isAdmin = useIsAdmin()
  const endpoints = useLoad(() => api.webhooks(props.appId), [props.appId])
  const [url, setUrl] = useState("")
  const [description, setDescription] = useState("")
  const [secret, setSecret] = useState<string | undefined>(undefined)
  const [open, setOpen] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  return (
    <div>
      <h2>Webhook endpoints</h2>
      {secret === undefined ? null : (
        <div class="card reveal" role="region" aria-label="New signing secret">
          <p class="note warn">Copy the signing secret now: it is shown only this once.</p>
          <p>
            <code class="secret">{secret}</code>
          </p>
          <CopyButton text={secret} label="Copy secret" />{" "}
          <button type="button" class="secondary small" onClick={() => setSecret(undefined)}>I have copied it</button>
        </div>
      )}
      <form
        hidden={!isAdmin}
        class="card"
        onSubmit={(event) => {
          event.preventDefault()
          setError(undefined)
          api.createWebhook(props.appId, {
            url: url.trim(),
            ...(description.trim() === "" ? {} : { description: description.trim() })
          }).then((created) => {
            setSecret(created.secret)
            setUrl("")
            setDescription("")
            endpoints.reload()
          }, setError)
        }}
      >
        <h3>Add an endpoint</h3>
        <Field
          label="URL"
          type="url"
          required
          placeholder="https://example.com/webhooks"
          value={url}
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <Field
          label="Description (optional)"
          maxLength={500}
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
        <p class="muted small">It receives every event type.</p>
        <button type="submit">Add endpoint</button>
        <ErrorNote error={error} />
      </form>
      <ErrorNote error={endpoints.error} />
      {endpoints.data === undefined
        ? (endpoints.loading ? <Loading what="endpoints" /> : null)
        : endpoints.data.data.length === 0
        ? <p class="muted">No webhook endpoints yet.</p>
        : endpoints.data.data.map((endpoint) => (
          <article class="card" key={endpoint.id} aria-label={`Endpoint ${endpoint.url}`}>
            <div class="title-row">
              <h3 class="url">{endpoint.url}</h3>
              {endpoint.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="bad">disabled</Badge>}
            </div>
            {endpoint.description === null ? null : <p>{endpoint.description}</p>}
            {endpoint.disabledReason === null ? null : <p class="note warn">{endpoint.disabledReason}</p>}
            <p class="muted small">
              {endpoint.events.length} event types · created <Time at={endpoint.createdAt} />
              {endpoint.failingSince === null ? null : (
                <>
                  {" "}
                  · failing since <Time at={endpoint.failingSince} />
                </>
              )}
            </p>
            <div class="actions">
              <button
                hidden={!isAdmin}
                type="button"
                class="secondary small"
                onClick={() => {
                  setError(undefined)
                  api.updateWebhook(props.appId, endpoint.id, { enabled: !endpoint.enabled }).then(
                    endpoints.reload,
                    setError
                  )
                }}
              >
                {endpoint.enabled ? "Disable" : "Enable"}
              </button>
              <button
                type="button"
                class="secondary small"
                aria-expanded={open === endpoint.id}
                onClick={() =>
                  setOpen(open === endpoint.id ? undefined : endpoint.id)}
              >
                {open === endpoint.id ? "Hide deliveries" : "Show deliveries"}
              </button>
            </div>
            {open === endpoint.id ? <Deliveries appId={props.appId} endpoint={endpoint} /> : null}
          </article>
        ))}
    </div>
  )
}
