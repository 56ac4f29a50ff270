/**
 * The user's connections: status, sync state and backfill progress, last error, quarantined records and
 * a re-sync button each; in sandbox mode, one-click connections to the simulated providers.
 */
import { useState } from "preact/hooks"
import { useIsAdmin } from "../../access.js"
import type { Connection } from "../../api.js"
import { api } from "../../api.js"
import { Badge, ErrorNote, TableFrame, Time, toneOf, useLoad } from "../../components.js"

export const syncing = (connection: Connection) =>
  connection.syncState === "Pending" || connection.syncState === "Backfilling" || connection.syncProgress !== null

export const Connections = (props: {
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

/** Sandbox mode: connects the user to a simulated provider in one click (the connect flow runs on the server). */
export const SandboxConnect = (props: {
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
