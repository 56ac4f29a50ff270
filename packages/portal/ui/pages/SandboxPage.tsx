/**
 * Sandbox mode only: make a test user of an app, see the app's test users with their connections' state, connect
 * one to simulated providers in a click each or to all of them at once (the hosted connect flow runs against the
 * simulators), and set the simulators' fault knobs.
 *
 * The state shown is the server's, read again every 2 s while a connection of the page is `Pending` or
 * `Backfilling`, and no more once every one has settled. The chosen app and test user are kept in the address
 * (`?app=&user=`) and in this browser's storage, so leaving the page and coming back (by the navigation, which
 * names neither) opens the same ones.
 */
import { useEffect, useState } from "preact/hooks"
import type { ApiError, ConnectAllResult, Connection, Fault, SandboxTestUser, SimulatorFaults } from "../api.js"
import { api } from "../api.js"
import { Badge, ErrorNote, Field, Link, Loading, TableFrame, Time, toneOf, useLoad, usePager } from "../components.js"
import { navigate, useLocation } from "../router.js"

const faultKinds: ReadonlyArray<Fault["kind"]> = [
  "rateLimit",
  "serverError",
  "slow",
  "expiredToken",
  "malformedJson",
  "gone"
]

const Faults = (props: { readonly simulator: SimulatorFaults; readonly onChange: () => void }) => {
  const { provider } = props.simulator
  const [kind, setKind] = useState<Fault["kind"]>("serverError")
  const [path, setPath] = useState("*")
  const [count, setCount] = useState("1")
  const [error, setError] = useState<unknown>(undefined)
  const save = (faults: ReadonlyArray<Fault>) => {
    setError(undefined)
    api.setFaults(provider, faults).then(props.onChange, setError)
  }
  return (
    <article class="card" aria-labelledby={`faults-${provider}`}>
      <h3 id={`faults-${provider}`}>{provider}</h3>
      {props.simulator.faults.length === 0 ? <p class="muted small">No faults pending.</p> : (
        <ul class="small">
          {props.simulator.faults.map((fault, i) => (
            <li key={i}>
              <code>{fault.kind}</code> on <code>{fault.method ?? "any method"} {fault.path}</code>: {fault.remaining}
              {" "}
              more requests
            </li>
          ))}
        </ul>
      )}
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault()
          // The pending knobs stay as they are (with the requests they still hit); the new one joins them. A knob
          // keeps the method it was set with, which the simulator's own route does not limit: one this API does
          // not take is refused with a 400, as it always was.
          const pending = props.simulator.faults.map(({ remaining, ...fault }) =>
            ({ ...fault, count: remaining }) as Fault
          )
          save([...pending, { kind, path, count: Number(count) }])
        }}
      >
        <div class="field">
          <label for={`kind-${provider}`}>Fault</label>
          <select
            id={`kind-${provider}`}
            value={kind}
            onChange={(event) => setKind(event.currentTarget.value as Fault["kind"])}
          >
            {faultKinds.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </div>
        <Field label="Path pattern" value={path} required onInput={(event) => setPath(event.currentTarget.value)} />
        <Field
          label="Requests"
          type="number"
          min={1}
          max={1000}
          value={count}
          onInput={(event) => setCount(event.currentTarget.value)}
        />
        <button type="submit">Add fault</button>
        <button type="button" class="secondary" onClick={() => save([])} disabled={props.simulator.faults.length === 0}>
          Clear
        </button>
      </form>
      <ErrorNote error={error} />
    </article>
  )
}

/** The states a sync moves out of by itself, soon: the page reads the server again while one is shown. */
const inMotion = (connections: ReadonlyArray<Connection>) =>
  connections.some((c) => c.syncState === "Pending" || c.syncState === "Backfilling")

/** How often the page reads the state again while a sync is under way. */
const pollEveryMs = 2000

const storageKey = "pulsebridge.portal.sandbox"

interface Choice {
  readonly app?: string | undefined
  readonly user?: string | undefined
}

const remembered = (): Choice => {
  try {
    const value = JSON.parse(localStorage.getItem(storageKey) ?? "{}")
    return {
      app: typeof value.app === "string" ? value.app : undefined,
      user: typeof value.user === "string" ? value.user : undefined
    }
  } catch {
    return {}
  }
}

const remember = (choice: Choice) => {
  try {
    localStorage.setItem(storageKey, JSON.stringify(choice))
  } catch {
    // Storage may be off (a private window's quota); the address still holds the choice.
  }
}

const sandboxPath = (choice: Choice) => {
  const params = new URLSearchParams()
  if (choice.app !== undefined) params.set("app", choice.app)
  if (choice.app !== undefined && choice.user !== undefined) params.set("user", choice.user)
  const search = params.toString()
  return search === "" ? "/portal/sandbox" : `/portal/sandbox?${search}`
}

const userHref = (user: { readonly appId: string; readonly id: string }) =>
  `/portal/apps/${user.appId}/users/${user.id}`

/** A connection's state in words and a badge: its sync state, its status when not Active, a backfill's progress. */
const ConnectionState = (props: { readonly connection: Connection }) => {
  const c = props.connection
  const progress = c.syncProgress === null ? "" : ` ${c.syncProgress.windowsDone}/${c.syncProgress.windowsTotal}`
  return (
    <span class="conn">
      {c.provider} {c.status === "Active" ? null : <Badge tone={toneOf(c.status)}>{c.status}</Badge>}
      <Badge tone={toneOf(c.syncState)}>{`${c.syncState}${progress}`}</Badge>
    </span>
  )
}

/** The chosen test user: a connect button per simulator it is not connected to, connect all, and the states. */
const TestUserCard = (props: {
  readonly user: SandboxTestUser
  readonly providers: ReadonlyArray<string>
  readonly onChange: () => void
}) => {
  const { user } = props
  const [busy, setBusy] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [result, setResult] = useState<ConnectAllResult | undefined>(undefined)
  useEffect(() => {
    setError(undefined)
    setResult(undefined)
  }, [user.id])
  const byProvider = new Map(user.connections.map((c) => [c.provider as string, c]))
  const missing = props.providers.filter((p) => byProvider.get(p)?.status !== "Active")
  const connect = (provider: string) => {
    setBusy(provider)
    setError(undefined)
    setResult(undefined)
    api.sandboxConnect(user.id, provider).then(
      () => {
        setBusy(undefined)
        props.onChange()
      },
      (e) => {
        setBusy(undefined)
        setError(e)
      }
    )
  }
  const connectAll = () => {
    setBusy("all")
    setError(undefined)
    setResult(undefined)
    api.connectAll(user.appId, user.id).then(
      (done) => {
        setBusy(undefined)
        setResult(done)
        props.onChange()
      },
      (e) => {
        setBusy(undefined)
        setError(e)
      }
    )
  }
  return (
    <section class="card" aria-labelledby="chosen-user">
      <h3 id="chosen-user">
        Test user <Link href={userHref(user)}>{user.externalUserId}</Link>
      </h3>
      <p class="small">
        <Badge tone={toneOf(user.status)}>{user.status}</Badge>{" "}
        <span class="muted">
          made <Time at={user.createdAt} />
        </span>
      </p>
      <ul class="connections" aria-label={`Connections of ${user.externalUserId}`} aria-live="polite">
        {props.providers.map((provider) => {
          const connection = byProvider.get(provider)
          return (
            <li key={provider}>
              {connection === undefined ?
                (
                  <span class="conn">
                    {provider} <span class="muted">not connected</span>
                  </span>
                ) :
                <ConnectionState connection={connection} />}
              {connection?.status === "Active" ? null : (
                <button
                  type="button"
                  class="secondary small"
                  disabled={busy !== undefined || user.status !== "Active"}
                  onClick={() => connect(provider)}
                >
                  {busy === provider ? `Connecting ${provider}…` : `Connect ${provider}`}
                </button>
              )}
            </li>
          )
        })}
      </ul>
      <div class="actions">
        <button
          type="button"
          disabled={busy !== undefined || missing.length === 0 || user.status !== "Active"}
          onClick={connectAll}
        >
          {busy === "all" ? "Connecting all…" : "Connect all"}
        </button>
        <span class="muted small" role="status">
          {busy === "all"
            ? `Connecting ${missing.join(", ")}…`
            : missing.length === 0
            ? "Connected to every simulator."
            : result === undefined || result.connected.length === 0
            ? ""
            : `Connected ${result.connected.join(", ")}.`}
        </span>
      </div>
      {result === undefined || result.failed.length === 0 ? null : (
        <div class="note error" role="alert">
          <p>Some simulators did not connect:</p>
          <ul>
            {result.failed.map((f) => <li key={f.provider}>{f.provider}: {f.message}</li>)}
          </ul>
        </div>
      )}
      <ErrorNote error={error} />
    </section>
  )
}

/** The app's test users, newest first, paged, each with its connections' state and a button to choose it. */
const TestUserList = (props: {
  readonly appName: string
  readonly page: { readonly data: ReadonlyArray<SandboxTestUser>; readonly nextCursor: string | null }
  readonly chosen: string | undefined
  readonly onChoose: (userId: string) => void
  readonly pager: ReturnType<typeof usePager>
}) =>
  props.page.data.length === 0 && props.pager.page === 1
    ? <p class="muted">{props.appName} has no test users yet.</p>
    : (
      <>
        <TableFrame label={`Test users of ${props.appName}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">External id</th>
                <th scope="col">Status</th>
                <th scope="col">Connections</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr-only">Choose</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {props.page.data.map((user) => (
                <tr key={user.id} aria-current={user.id === props.chosen ? "true" : undefined}>
                  <td>
                    <Link href={userHref(user)}>{user.externalUserId}</Link>
                  </td>
                  <td>
                    <Badge tone={toneOf(user.status)}>{user.status}</Badge>
                  </td>
                  <td class="small">
                    {user.connections.length === 0
                      ? <span class="muted">none</span>
                      : user.connections.map((c) => <ConnectionState key={c.id} connection={c} />)}
                  </td>
                  <td>
                    <Time at={user.createdAt} />
                  </td>
                  <td>
                    <button
                      type="button"
                      class="secondary small"
                      aria-pressed={user.id === props.chosen}
                      onClick={() =>
                        props.onChoose(user.id)}
                    >
                      Choose <span class="sr-only">{user.externalUserId}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
        {props.pager.controls(props.page.nextCursor)}
      </>
    )

export const SandboxPage = () => {
  const location = useLocation()
  const params = new URLSearchParams(location.search)
  const appParam = params.get("app") ?? undefined
  const userParam = params.get("user") ?? undefined
  const apps = useLoad(() => api.apps(), [])
  const faults = useLoad(() => api.faults(), [])
  const [externalId, setExternalId] = useState("")
  const [error, setError] = useState<unknown>(undefined)
  const pager = usePager()
  useEffect(() => void (document.title = "Sandbox · PulseBridge admin"), [])

  const choose = (choice: Choice) => navigate(sandboxPath(choice), { replace: true })

  // Opened without a choice in the address (from the navigation): the one this browser remembers.
  useEffect(() => {
    if (appParam === undefined) {
      const last = remembered()
      if (last.app !== undefined) choose(last)
    }
  }, [])
  // An app that no longer exists (or none chosen yet): the first one.
  const appList = apps.data?.data
  const app = appList?.find((a) => a.id === appParam)
  useEffect(() => {
    if (appList !== undefined && appList.length > 0 && app === undefined) choose({ app: appList[0]!.id })
  }, [appList, appParam])
  useEffect(() => {
    if (app !== undefined) remember({ app: app.id, user: userParam })
  }, [app?.id, userParam])
  useEffect(() => pager.reset(), [app?.id])

  const appId = app?.id
  const list = useLoad(
    () => appId === undefined ? Promise.resolve(undefined) : api.testUsers(appId, pager.cursor),
    [appId, pager.cursor]
  )
  const chosen = useLoad(
    () =>
      appId === undefined || userParam === undefined
        ? Promise.resolve(undefined)
        : api.sandboxTestUser(appId, userParam),
    [appId, userParam]
  )
  // A remembered test user that is gone (erased), of another app, or an id edited by hand: no choice.
  useEffect(() => {
    const status = (chosen.error as ApiError | undefined)?.status
    if (status === 404 || status === 400) choose({ app: appId })
  }, [chosen.error])

  const reloadAll = () => {
    list.reload()
    chosen.reload()
  }
  const moving = inMotion(list.data?.data.flatMap((u) => u.connections) ?? []) ||
    inMotion(chosen.data?.connections ?? [])
  useEffect(() => {
    if (!moving) return
    const timer = setTimeout(reloadAll, pollEveryMs)
    return () => clearTimeout(timer)
  }, [moving, list.data, chosen.data])

  const providers = faults.data?.data.map((f) => f.provider as string) ?? []

  return (
    <section>
      <h1>Sandbox</h1>
      <p class="muted">Simulated providers answer here; nothing leaves this server.</p>
      <ErrorNote error={apps.error} />
      {apps.data === undefined ? <Loading what="apps" /> : apps.data.data.length === 0
        ? (
          <p>
            Create an app first on the <Link href="/portal">apps page</Link>.
          </p>
        )
        : (
          <>
            <div class="field inline">
              <label for="sandbox-app">App</label>
              <select
                id="sandbox-app"
                value={appId ?? ""}
                onChange={(event) => choose({ app: event.currentTarget.value })}
              >
                {apps.data.data.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
              </select>
            </div>
            <h2>Make a test user</h2>
            <form
              class="inline"
              onSubmit={(event) => {
                event.preventDefault()
                if (appId === undefined) return
                setError(undefined)
                api.testUser(appId, externalId.trim()).then((detail) => {
                  setExternalId("")
                  pager.reset()
                  list.reload()
                  choose({ app: appId, user: detail.user.id })
                }, setError)
              }}
            >
              <Field
                label="External id (optional)"
                maxLength={255}
                value={externalId}
                onInput={(event) => setExternalId(event.currentTarget.value)}
              />
              <button type="submit">Make test user</button>
            </form>
            <ErrorNote error={error} />
            {userParam === undefined ? null : chosen.data === undefined
              ? (chosen.loading ? <Loading what="the test user" /> : <ErrorNote error={chosen.error} />)
              : <TestUserCard user={chosen.data} providers={providers} onChange={reloadAll} />}
            <h2>Test users{app === undefined ? "" : ` of ${app.name}`}</h2>
            <p class="muted small" aria-live="polite">
              {moving ? "A sync is under way; the states here follow it." : ""}
            </p>
            <ErrorNote error={list.error} />
            {list.data === undefined || app === undefined
              ? (list.loading ? <Loading what="test users" /> : null)
              : (
                <TestUserList
                  appName={app.name}
                  page={list.data}
                  chosen={userParam}
                  onChoose={(userId) => choose({ app: app.id, user: userId })}
                  pager={pager}
                />
              )}
          </>
        )}
      <h2>Simulator faults</h2>
      <p class="muted small">
        Each fault makes the next requests to that simulator whose path matches misbehave (<code>*</code>{" "}
        matches any run of characters).
      </p>
      <ErrorNote error={faults.error} />
      {faults.data === undefined ? (faults.loading ? <Loading what="simulators" /> : null) : (
        <div class="grid">
          {faults.data.data.map((simulator) => (
            <Faults key={simulator.provider} simulator={simulator} onChange={faults.reload} />
          ))}
        </div>
      )}
    </section>
  )
}
