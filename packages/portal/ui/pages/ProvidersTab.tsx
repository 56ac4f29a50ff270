/**
 * An app's credentials at each provider: set or replace them, with the callback and webhook URLs to
 * register at the provider shown beside them. Secrets are write-only: the form never shows one, and
 * after saving only the client id and the time of the change are shown.
 */
import { useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type { AuthType, ProviderSetup } from "../api.js"
import { api } from "../api.js"
import { Badge, CopyValue, ErrorNote, Field, Loading, Time, useLoad } from "../components.js"

const ProviderForm = (
  props: { readonly appId: string; readonly setup: ProviderSetup; readonly onSaved: () => void }
) => {
  const isAdmin = useIsAdmin()
  const { setup } = props
  const [open, setOpen] = useState(false)
  const [fields, setFields] = useState<Record<string, string>>({})
  const [authType, setAuthType] = useState<AuthType>(setup.authType ?? setup.authTypes[0] ?? "OAuth2")
  const [error, setError] = useState<unknown>(undefined)
  const [saved, setSaved] = useState(false)
  const set = (key: string) => (event: { currentTarget: HTMLInputElement }) =>
    setFields({ ...fields, [key]: event.currentTarget.value })
  const field = (key: string, label: string, secret: boolean, required: boolean, hint?: string) => (
    <Field
      label={label}
      name={key}
      type={secret ? "password" : "text"}
      autocomplete={secret ? "new-password" : "off"}
      required={required}
      value={fields[key] ?? ""}
      onInput={set(key)}
      {...(hint === undefined ? {} : { hint })}
    />
  )
  return (
    <article class="card provider" aria-labelledby={`provider-${setup.provider}`}>
      <div class="title-row">
        <h3 id={`provider-${setup.provider}`}>{setup.displayName}</h3>
        {setup.configured ? <Badge tone="ok">configured</Badge> : <Badge tone="warn">not configured</Badge>}
      </div>
      {setup.configured
        ? (
          <p class="small">
            Client id <code>{setup.clientId}</code> · {setup.authType} · changed <Time at={setup.updatedAt} />
            <br />
            <span class="muted">The secret is stored sealed and is never shown.</span>
          </p>
        )
        : (
          <p class="muted small">
            Not set: in sandbox mode the app uses the simulator's credentials; otherwise its users cannot connect.
          </p>
        )}
      <CopyValue label="Callback URL" value={setup.callbackUrl} />
      {setup.webhookUrl === null ? null : <CopyValue label="Webhook URL" value={setup.webhookUrl} />}
      {saved ? <p class="note ok" role="status">Saved. The secret will not be shown again.</p> : null}
      {!open
        ? (
          <button hidden={!isAdmin} type="button" class="secondary" onClick={() => setOpen(true)}>
            {setup.configured ? "Replace credentials" : "Set credentials"}
          </button>
        )
        : (
          <form
            onSubmit={(event) => {
              event.preventDefault()
              setError(undefined)
              const body: Record<string, string> = {}
              for (const [key, value] of Object.entries(fields)) if (value.trim() !== "") body[key] = value.trim()
              if (setup.authTypes.length > 1) body.authType = authType
              api.setProvider(props.appId, setup.provider, body).then(() => {
                setFields({})
                setOpen(false)
                setSaved(true)
                props.onSaved()
              }, setError)
            }}
          >
            {setup.authTypes.length > 1
              ? (
                <div class="field">
                  <label for={`auth-${setup.provider}`}>Kind of credentials</label>
                  <select
                    id={`auth-${setup.provider}`}
                    value={authType}
                    onChange={(event) => setAuthType(event.currentTarget.value as AuthType)}
                  >
                    {setup.authTypes.map((t) => <option key={t} value={t}>{t}</option>)}
                  </select>
                </div>
              )
              : null}
            {field("clientId", "Client id", false, true)}
            {field("clientSecret", "Client secret", true, true, "Write-only: it is never shown again")}
            {field("scopes", "Scopes (optional)", false, false, "Space separated; the provider's defaults otherwise")}
            {setup.authTypes.includes("OAuth1") && setup.authTypes.includes("OAuth2")
              ? (
                <>
                  {field("oauth1ClientId", "OAuth 1.0a consumer key (optional)", false, false)}
                  {field("oauth1ClientSecret", "OAuth 1.0a consumer secret (optional)", true, false)}
                </>
              )
              : null}
            {setup.webhookUrl === null
              ? null
              : field("webhookVerificationCode", "Webhook verification code (optional)", true, false)}
            <div class="actions">
              <button type="submit">Save credentials</button>
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  setFields({})
                  setOpen(false)
                }}
              >
                Cancel
              </button>
            </div>
            <ErrorNote error={error} />
          </form>
        )}
    </article>
  )
}

export const ProvidersTab = (props: { readonly appId: string }) => {
  const providers = useLoad(() => api.providers(props.appId), [props.appId])
  return (
    <div>
      <h2>Provider credentials</h2>
      <ErrorNote error={providers.error} />
      {providers.data === undefined
        ? (providers.loading ? <Loading what="providers" /> : null)
        : (
          <div class="grid">
            {providers.data.data.map((setup) => (
              <ProviderForm key={setup.provider} appId={props.appId} setup={setup} onSaved={providers.reload} />
            ))}
          </div>
        )}
    </div>
  )
}
