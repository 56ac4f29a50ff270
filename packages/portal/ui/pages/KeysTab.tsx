/**
 * An app's API keys: create one with chosen permissions (the whole key shown once, with a copy button
 * and a warning; afterwards only its prefix), the list with created, last used and revoked, and revoke
 * after a confirmation.
 */
import { useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import type { ApiKeySummary, CreatedKey, Permission } from "../api.js"
import { api, permissions } from "../api.js"
import { Badge, Confirm, CopyButton, ErrorNote, Field, Loading, TableFrame, Time, useLoad } from "../components.js"

export const KeysTab = (props: { readonly appId: string }) => {
  const isAdmin = useIsAdmin()
  const keys = useLoad(() => api.keys(props.appId), [props.appId])
  const [name, setName] = useState("")
  const [chosen, setChosen] = useState<ReadonlyArray<Permission>>(["users:read", "users:write"])
  const [created, setCreated] = useState<CreatedKey | undefined>(undefined)
  const [revoking, setRevoking] = useState<ApiKeySummary | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)

  return (
    <div>
      <h2>API keys</h2>
      {created === undefined ? null : (
        <div class="card reveal" role="region" aria-label="New API key">
          <p class="note warn">
            Copy this key now: it is shown only this once. Afterwards only its prefix is shown.
          </p>
          <p>
            <code class="secret" data-testid="new-api-key">{created.apiKey}</code>
          </p>
          <CopyButton text={created.apiKey} label="Copy key" />{" "}
          <button type="button" class="secondary small" onClick={() => setCreated(undefined)}>
            I have copied it
          </button>
        </div>
      )}
      <form
        hidden={!isAdmin}
        class="card"
        onSubmit={(event) => {
          event.preventDefault()
          setError(undefined)
          api.createKey(props.appId, { permissions: chosen, ...(name.trim() === "" ? {} : { name: name.trim() }) })
            .then((key) => {
              setCreated(key)
              setName("")
              keys.reload()
            }, setError)
        }}
      >
        <h3>Create a key</h3>
        <Field
          label="Note (optional)"
          maxLength={200}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <fieldset>
          <legend>Permissions</legend>
          {permissions.map((permission) => (
            <label key={permission} class="check">
              <input
                type="checkbox"
                checked={chosen.includes(permission)}
                onChange={(event) =>
                  setChosen(
                    event.currentTarget.checked
                      ? [...chosen, permission]
                      : chosen.filter((p) => p !== permission)
                  )}
              />
              {permission}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={chosen.length === 0}>Create key</button>
        <ErrorNote error={error} />
      </form>
      <ErrorNote error={keys.error} />
      {keys.data === undefined ? (keys.loading ? <Loading what="keys" /> : null) : keys.data.data.length === 0
        ? <p class="muted">This app has no keys yet.</p>
        : (
          <TableFrame label="API keys">
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Note</th>
                  <th scope="col">Permissions</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.data.map((key) => (
                  <tr key={key.id} data-key-prefix={key.prefix}>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td>{key.name ?? <span class="muted">none</span>}</td>
                    <td class="small">{key.permissions.join(", ")}</td>
                    <td>
                      <Time at={key.createdAt} />
                    </td>
                    <td>
                      <Time at={key.lastUsedAt} />
                    </td>
                    <td>
                      {key.revokedAt === null
                        ? <Badge tone="ok">active</Badge>
                        : (
                          <>
                            <Badge tone="bad">revoked</Badge> <Time at={key.revokedAt} />
                          </>
                        )}
                    </td>
                    <td>
                      {key.revokedAt === null
                        ? (
                          <button
                            hidden={!isAdmin}
                            type="button"
                            class="danger small"
                            aria-label={`Revoke key ${key.prefix}`}
                            onClick={() => setRevoking(key)}
                          >
                            Revoke
                          </button>
                        )
                        : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      {revoking === undefined ? null : (
        <Confirm
          title="Revoke this key?"
          confirmLabel="Revoke key"
          onClose={() => setRevoking(undefined)}
          onConfirm={() => api.revokeKey(props.appId, revoking.id).then(keys.reload)}
        >
          <p>
            Requests with the key <code>{revoking.prefix}…</code> will be refused at once (401). This cannot be undone.
          </p>
        </Confirm>
      )}
    </div>
  )
}
