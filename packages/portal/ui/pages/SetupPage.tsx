/**
 * The page of an operator's one-time setup link (`/portal/setup#<token>`): choose a password. The
 * token stays in the fragment, which browsers never send; the page posts it with the password.
 */
import { useEffect, useState } from "preact/hooks"
import { api } from "../api.js"
import { ErrorNote, Field, Link } from "../components.js"

export const SetupPage = () => {
  const token = window.location.hash.replace(/^#/, "")
  const [password, setPassword] = useState("")
  const [repeated, setRepeated] = useState("")
  const [error, setError] = useState<unknown>(undefined)
  const [done, setDone] = useState(false)
  useEffect(() => void (document.title = "Set your password · PulseBridge admin"), [])
  if (done) {
    return (
      <section class="card login">
        <h1>Password set</h1>
        <p role="status">Your password is set; the setup link no longer works.</p>
        <p>
          <Link href="/portal">Log in</Link>
        </p>
      </section>
    )
  }
  return (
    <section class="card login">
      <h1>Set your password</h1>
      {token === "" ? <p class="note error" role="alert">This link has no setup token. Ask for a new link.</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (password !== repeated) return setError(new Error("The two passwords differ."))
          setError(undefined)
          api.setup(token, password).then(() => {
            history.replaceState(null, "", "/portal/setup")
            setDone(true)
          }, setError)
        }}
      >
        <Field
          label="New password"
          type="password"
          autocomplete="new-password"
          required
          minLength={12}
          maxLength={1024}
          hint="At least 12 characters"
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        <Field
          label="Repeat the password"
          type="password"
          autocomplete="new-password"
          required
          value={repeated}
          onInput={(event) => setRepeated(event.currentTarget.value)}
        />
        <ErrorNote error={error} />
        <button type="submit" disabled={token === ""}>Set password</button>
      </form>
    </section>
  )
}
