/**
 * The apps: the list with their user counts, and a form to create one.
 */
import { useEffect, useState } from "preact/hooks"
import { useIsAdmin } from "../access.js"
import { api } from "../api.js"
import { ErrorNote, Field, Link, Loading, TableFrame, Time, useLoad } from "../components.js"
import { navigate } from "../router.js"

export const AppsPage = () => {
  const isAdmin = useIsAdmin()
  const apps = useLoad(() => api.apps(), [])
  const [name, setName] = useState("")
  const [error, setError] = useState<unknown>(undefined)
  useEffect(() => void (document.title = "Apps · PulseBridge admin"), [])
  return (
    <section>
      <h1>Apps</h1>
      <ErrorNote error={apps.error} />
      {apps.data === undefined ? (apps.loading ? <Loading what="apps" /> : null) : apps.data.data.length === 0
        ? <p class="muted">No apps yet. Create the first one below.</p>
        : (
          <TableFrame label="Apps">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Users</th>
                  <th scope="col">Created</th>
                  <th scope="col">Id</th>
                </tr>
              </thead>
              <tbody>
                {apps.data.data.map((app) => (
                  <tr key={app.id}>
                    <td>
                      <Link href={`/portal/apps/${app.id}`}>{app.name}</Link>
                    </td>
                    <td class="num">{app.users}</td>
                    <td>
                      <Time at={app.createdAt} />
                    </td>
                    <td>
                      <code class="small">{app.id}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      <h2 hidden={!isAdmin}>Create an app</h2>
      <form
        hidden={!isAdmin}
        class="inline"
        onSubmit={(event) => {
          event.preventDefault()
          setError(undefined)
          api.createApp(name.trim()).then((app) => navigate(`/portal/apps/${app.id}`), setError)
        }}
      >
        <Field
          label="App name"
          required
          maxLength={200}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <button type="submit">Create app</button>
      </form>
      <ErrorNote error={error} />
    </section>
  )
}
