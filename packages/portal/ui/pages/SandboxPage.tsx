/**
 * Sandbox mode only: make a test user of an app, connect it to simulated providers in a click each
 * (the hosted connect flow runs against the simulators), and set the simulators' fault knobs.
 */
import { useEffect, useState } from "preact/hooks"
import type { Fault, SimulatorFaults, UserDetail } from "../api.js"
import { api } from "../api.js"
import { Badge, ErrorNote, Field, Link, Loading, toneOf, useLoad } from "../components.js"

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

export const SandboxPage = () => {
  const apps = useLoad(() => api.apps(), [])
  const faults = useLoad(() => api.faults(), [])
  const [appId, setAppId] = useState<string>("")
  const [externalId, setExternalId] = useState("")
  const [user, setUser] = useState<UserDetail | undefined>(undefined)
  const [connected, setConnected] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(undefined)
  useEffect(() => void (document.title = "Sandbox · PulseBridge admin"), [])
  useEffect(() => {
    if (appId === "" && apps.data !== undefined && apps.data.data.length > 0) setAppId(apps.data.data[0]!.id)
  }, [apps.data])
  const providers = faults.data?.data.map((f) => f.provider) ?? []

  return (
    <section>
      <h1>Sandbox</h1>
      <p class="muted">Simulated providers answer here; nothing leaves this server.</p>
      <ErrorNote error={apps.error} />
      <h2>Make a test user</h2>
      {apps.data === undefined ? <Loading what="apps" /> : apps.data.data.length === 0
        ? (
          <p>
            Create an app first on the <Link href="/portal">apps page</Link>.
          </p>
        )
        : (
          <form
            class="inline"
            onSubmit={(event) => {
              event.preventDefault()
              setError(undefined)
              api.testUser(appId, externalId.trim()).then((detail) => {
                setUser(detail)
                setConnected({})
              }, setError)
            }}
          >
            <div class="field">
              <label for="sandbox-app">App</label>
              <select id="sandbox-app" value={appId} onChange={(event) => setAppId(event.currentTarget.value)}>
                {apps.data.data.map((app) => <option key={app.id} value={app.id}>{app.name}</option>)}
              </select>
            </div>
            <Field
              label="External id (optional)"
              maxLength={255}
              value={externalId}
              onInput={(event) => setExternalId(event.currentTarget.value)}
            />
            <button type="submit">Make test user</button>
          </form>
        )}
      <ErrorNote error={error} />
      {user === undefined ? null : (
        <div class="card" role="region" aria-label="Test user">
          <p>
            Test user{" "}
            <Link href={`/portal/apps/${user.user.appId}/users/${user.user.id}`}>{user.user.externalUserId}</Link>
          </p>
          <div class="actions">
            {providers.map((provider) =>
              connected[provider] === undefined
                ? (
                  <button
                    key={provider}
                    type="button"
                    class="secondary"
                    onClick={() => {
                      setError(undefined)
                      setConnected({ ...connected, [provider]: "connecting" })
                      api.sandboxConnect(user.user.id, provider).then(
                        (c) => setConnected((now) => ({ ...now, [provider]: c.syncState })),
                        (e) => {
                          setConnected((now) => {
                            const { [provider]: _, ...rest } = now
                            return rest
                          })
                          setError(e)
                        }
                      )
                    }}
                  >
                    Connect {provider}
                  </button>
                )
                : (
                  <span key={provider}>
                    {provider} <Badge tone={toneOf(connected[provider]!)}>{connected[provider]}</Badge>
                  </span>
                )
            )}
          </div>
        </div>
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
