/**
 * The login form. A wrong email or password gets one generic message (the server does not say which);
 * while failed attempts are throttled, the form says how long to wait and counts down. An operator with a second
 * factor is then asked for a code of its authenticator app, or a recovery code.
 */
import { useEffect, useState } from "preact/hooks"
import type { Session } from "../api.js"
import { api, ApiError } from "../api.js"
import { Field, message } from "../components.js"

export const LoginPage = (props: { readonly onLoggedIn: (session: Session) => void }) => {
  const [challenge, setChallenge] = useState<string | undefined>(undefined)
  const [code, setCode] = useState("")
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const [waitUntil, setWaitUntil] = useState<number | undefined>(undefined)
  const [now, setNow] = useState(() => Date.now())

  useEffect(() => void (document.title = "Log in · PulseBridge admin"), [])
  useEffect(() => {
    if (waitUntil === undefined) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [waitUntil])

  const secondsLeft = waitUntil === undefined ? 0 : Math.max(0, Math.ceil((waitUntil - now) / 1000))

  const refused = (e: unknown, wrong: string) => {
    setBusy(false)
    if (e instanceof ApiError && e.status === 429) {
      const seconds = typeof e.body.retryAfterSeconds === "number" ? e.body.retryAfterSeconds : 1
      setNow(Date.now())
      setWaitUntil(Date.now() + seconds * 1000)
      setError(undefined)
    } else if (e instanceof ApiError && e.status === 401) {
      setError(wrong === "" ? e.message : wrong)
    } else setError(message(e))
  }
  const alerts = (
    <div role="alert" class="alerts">
      {error === undefined ? null : <p class="note error">{error}</p>}
      {secondsLeft > 0
        ? <p class="note warn">Too many attempts, try again in {secondsLeft} s.</p>
        : null}
    </div>
  )

  if (challenge !== undefined) {
    return (
      <section class="card login">
        <h1>PulseBridge admin</h1>
        <form
          onSubmit={(event) => {
            event.preventDefault()
            setBusy(true)
            setError(undefined)
            api.loginSecondFactor(challenge, code.trim()).then(props.onLoggedIn, (e) => {
              setCode("")
              if (e instanceof ApiError && e.status === 401 && /expired/.test(e.message)) setChallenge(undefined)
              refused(e, "")
            })
          }}
        >
          <Field
            label="Code"
            name="code"
            autocomplete="one-time-code"
            inputMode="text"
            required
            minLength={6}
            maxLength={40}
            hint="The 6 digits your authenticator app shows, or one of your recovery codes"
            value={code}
            onInput={(event) => setCode(event.currentTarget.value)}
          />
          {alerts}
          <button type="submit" disabled={busy || secondsLeft > 0}>Verify</button>
        </form>
      </section>
    )
  }

  return (
    <section class="card login">
      <h1>PulseBridge admin</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          setBusy(true)
          setError(undefined)
          api.login(email, password).then((answer) => {
            if ("challenge" in answer) {
              setBusy(false)
              setChallenge(answer.challenge)
            } else props.onLoggedIn(answer)
          }, (e) => refused(e, "The email or the password is wrong."))
        }}
      >
        <Field
          label="Email"
          type="email"
          name="email"
          autocomplete="username"
          required
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <Field
          label="Password"
          type="password"
          name="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        {alerts}
        <button type="submit" disabled={busy || secondsLeft > 0}>Log in</button>
      </form>
    </section>
  )
}
