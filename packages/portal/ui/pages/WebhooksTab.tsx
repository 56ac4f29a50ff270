/**
 * An app's webhook endpoints: create one for the event types chosen (its signing secret shown once),
 * enable or disable it, and open its page (`WebhookEndpointPage`): its last error, deliveries, test
 * event, secret rotation and removal.
 */
import { useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type { WebhookEventType } from "../api.js"
import { api, webhookEventTypes } from "../api.js"
import { Badge, CopyButton, ErrorNote, Field, Link, Loading, Time, useLoad } from "../components.js"

export const WebhooksTab = (props: { readonly appId: string }) => {
  const isAdmin = useIsAdmin()
  const endpoints = useLoad(() => api.webhooks(props.appId), [props.appId])
  const [url, setUrl] = useState("")
  const [description, setDescription] = useState("")
  const [events, setEvents] = useState<ReadonlyArray<WebhookEventType>>(webhookEventTypes)
  const [secret, setSecret] = useState<string | undefined>(undefined)
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
            ...(description.trim() === "" ? {} : { description: description.trim() }),
            ...(events.length === webhookEventTypes.length ? {} : { events })
          }).then((created) => {
            setSecret(created.secret)
            setUrl("")
            setDescription("")
            setEvents(webhookEventTypes)
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
        <details>
          <summary>
            Event types: {events.length === webhookEventTypes.length ? "all" : `${events.length} chosen`}
          </summary>
          <fieldset>
            <legend>Event types</legend>
            {webhookEventTypes.map((type) => (
              <label class="check" key={type}>
                <input
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={(event) =>
                    setEvents(
                      event.currentTarget.checked
                        ? webhookEventTypes.filter((t) => t === type || events.includes(t))
                        : events.filter((t) => t !== type)
                    )}
                />
                <code>{type}</code>
              </label>
            ))}
          </fieldset>
        </details>
        <div class="actions">
          <button type="submit" disabled={events.length === 0}>Add endpoint</button>
          {events.length === 0 ? <span class="muted small">Choose at least one event type.</span> : null}
        </div>
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
              <h3 class="url">
                <Link href={`/portal/apps/${props.appId}/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
              </h3>
              {endpoint.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="bad">disabled</Badge>}
              {endpoint.failingSince === null ? null : <Badge tone="bad">failing</Badge>}
            </div>
            {endpoint.description === null ? null : <p>{endpoint.description}</p>}
            {endpoint.disabledReason === null ? null : <p class="note warn">{endpoint.disabledReason}</p>}
            <p class="muted small">
              {endpoint.events.length === webhookEventTypes.length
                ? "every event type"
                : `${endpoint.events.length} event types`} · created <Time at={endpoint.createdAt} />
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
              <Link class="button secondary small" href={`/portal/apps/${props.appId}/webhooks/${endpoint.id}`}>
                Deliveries and settings <span class="sr-only">of {endpoint.url}</span>
              </Link>
            </div>
          </article>
        ))}
    </div>
  )
}
