/**
 * An app's users: search by external id, and the paged list with each user's connections.
 */
import { useState } from "preact/hooks"
import { api } from "../api.js"
import { Badge, ErrorNote, Field, Link, Loading, TableFrame, Time, toneOf, useLoad, usePager } from "../components.js"

export const UsersTab = (props: { readonly appId: string; readonly sandbox: boolean }) => {
  const [input, setInput] = useState("")
  const [search, setSearch] = useState("")
  const pager = usePager()
  const users = useLoad(() => api.users(props.appId, search, pager.cursor), [props.appId, search, pager.cursor])
  return (
    <div>
      <h2>Users</h2>
      <form
        class="inline"
        role="search"
        onSubmit={(event) => {
          event.preventDefault()
          pager.reset()
          setSearch(input.trim())
        }}
      >
        <Field
          label="External user id"
          type="search"
          maxLength={255}
          value={input}
          onInput={(event) => setInput(event.currentTarget.value)}
        />
        <button type="submit">Search</button>
        {search === "" ? null : (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setInput("")
              pager.reset()
              setSearch("")
            }}
          >
            Show all
          </button>
        )}
      </form>
      {props.sandbox
        ? (
          <p class="muted small">
            In sandbox mode the <Link href="/portal/sandbox">sandbox page</Link> makes test users with simulated data.
          </p>
        )
        : null}
      <ErrorNote error={users.error} />
      {users.data === undefined ? (users.loading ? <Loading what="users" /> : null) : (
        <>
          <p class="muted small" aria-live="polite">
            {users.data.data.length === 0
              ? (search === "" ? "This app has no users yet." : `No user's external id matches “${search}”.`)
              : `${users.data.data.length} users on this page${search === "" ? "" : ` matching “${search}”`}.`}
          </p>
          {users.data.data.length === 0 ? null : (
            <TableFrame label="Users">
              <table>
                <thead>
                  <tr>
                    <th scope="col">External id</th>
                    <th scope="col">Status</th>
                    <th scope="col">Connections</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {users.data.data.map((user) => (
                    <tr key={user.id}>
                      <td>
                        <Link href={`/portal/apps/${props.appId}/users/${user.id}`}>{user.externalUserId}</Link>
                      </td>
                      <td>
                        <Badge tone={toneOf(user.status)}>{user.status}</Badge>
                      </td>
                      <td class="small">
                        {user.connections.length === 0
                          ? <span class="muted">none</span>
                          : user.connections.map((c) => `${c.provider} (${c.status}, ${c.syncState})`).join(", ")}
                      </td>
                      <td>
                        <Time at={user.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          )}
          {pager.controls(users.data.nextCursor)}
        </>
      )}
    </div>
  )
}
