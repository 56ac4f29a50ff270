/**
 * One app: its name (renamed in place) and its sections as tabs with their own addresses
 * (`/portal/apps/:appId/keys|providers|webhooks|users`), so a reload stays on the same section.
 */
import { useEffect, useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type { Session } from "../api.js"
import { api } from "../api.js"
import { ErrorNote, Field, Link, Loading, useLoad } from "../components.js"
import { KeysTab } from "./KeysTab.js"
import { ProvidersTab } from "./ProvidersTab.js"
import { UsersTab } from "./UsersTab.js"
import { WebhooksTab } from "./WebhooksTab.js"

const tabs = [
  { key: "keys", label: "API keys" },
  { key: "providers", label: "Provider credentials" },
  { key: "webhooks", label: "Webhook endpoints" },
  { key: "users", label: "Users" }
] as const

/**
 * The app's assistant sign-in URL (docs/mcp.md): where an AI assistant's OAuth sign-in goes, so that the app
 * signs its user in. Empty: assistants cannot connect through OAuth.
 */
const AssistantSignInForm = (props: { readonly appId: string; readonly isAdmin: boolean }) => {
  const current = useLoad(() => api.assistantSignIn(props.appId), [props.appId])
  const [value, setValue] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [saved, setSaved] = useState(false)
  if (current.data === undefined) return current.loading ? null : <ErrorNote error={current.error} />
  const shown = value ?? current.data.assistantSignInUrl ?? ""
  return (
    <form
      class="inline"
      aria-label="Assistant sign-in"
      onSubmit={(event) => {
        event.preventDefault()
        setError(undefined)
        setSaved(false)
        const url = shown.trim()
        api.setAssistantSignIn(props.appId, url === "" ? null : url).then(() => {
          setValue(undefined)
          setSaved(true)
          current.reload()
        }, setError)
      }}
    >
      <Field
        label="Assistant sign-in URL"
        hint="https; where an AI assistant's sign-in (MCP OAuth) sends the user. Empty: assistants cannot connect."
        type="url"
        maxLength={2048}
        disabled={!props.isAdmin}
        value={shown}
        onInput={(event) => setValue(event.currentTarget.value)}
      />
      <button hidden={!props.isAdmin} type="submit" class="secondary small">Save sign-in URL</button>
      {saved ? <span role="status" class="muted small">Saved</span> : null}
      <ErrorNote error={error} />
    </form>
  )
}

export const AppPage = (props: { readonly appId: string; readonly tab: string; readonly session: Session }) => {
  const isAdmin = useIsAdmin()
  const app = useLoad(() => api.app(props.appId), [props.appId])
  const [renaming, setRenaming] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const tab = tabs.find((t) => t.key === props.tab)
  useEffect(() => {
    if (app.data !== undefined) document.title = `${app.data.name}: ${tab?.label ?? ""} · PulseBridge admin`
  }, [app.data, tab])

  if (app.data === undefined) {
    return (
      <section>
        <p>
          <Link href="/portal">Apps</Link>
        </p>
        {app.loading ? <Loading what="the app" /> : <ErrorNote error={app.error} />}
      </section>
    )
  }
  return (
    <section>
      <p class="crumbs">
        <Link href="/portal">Apps</Link> / {app.data.name}
      </p>
      {renaming === undefined
        ? (
          <div class="title-row">
            <h1>{app.data.name}</h1>
            <button hidden={!isAdmin} type="button" class="secondary small" onClick={() => setRenaming(app.data!.name)}>
              Rename
            </button>
          </div>
        )
        : (
          <form
            class="inline"
            onSubmit={(event) => {
              event.preventDefault()
              setError(undefined)
              api.renameApp(props.appId, renaming.trim()).then(() => {
                setRenaming(undefined)
                app.reload()
              }, setError)
            }}
          >
            <Field
              label="New name"
              required
              maxLength={200}
              value={renaming}
              onInput={(event) => setRenaming(event.currentTarget.value)}
            />
            <button type="submit">Save name</button>
            <button type="button" class="secondary" onClick={() => setRenaming(undefined)}>Cancel</button>
          </form>
        )}
      <ErrorNote error={error} />
      <p class="muted small">
        App id <code>{app.data.id}</code> · {app.data.users} users
      </p>
      <AssistantSignInForm appId={props.appId} isAdmin={isAdmin} />
      <nav class="tabs" aria-label="App sections">
        {tabs.map((t) => (
          <Link
            key={t.key}
            href={`/portal/apps/${props.appId}/${t.key}`}
            aria-current={t.key === props.tab ? "page" : undefined}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      {props.tab === "keys"
        ? <KeysTab appId={props.appId} />
        : props.tab === "providers"
        ? <ProvidersTab appId={props.appId} />
        : props.tab === "webhooks"
        ? <WebhooksTab appId={props.appId} />
        : props.tab === "users"
        ? <UsersTab appId={props.appId} sandbox={props.session.sandbox} />
        : <p>There is no such section.</p>}
    </section>
  )
}
