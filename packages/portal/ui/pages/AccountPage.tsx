/**
 * The signed-in operator's own account, for every role: change the password (the current one required; the
 * operator's other sessions end) and set up or turn off the second factor.
 */
import { useEffect, useState } from "preact/hooks"
import type { Session, TotpEnrolment } from "../api.js"
import { api } from "../api.js"
import { CopyButton, ErrorNote, Field } from "../components.js"

/**
 * The second factor: set it up (a QR code of the otpauth URI, shown as an image of a `data:` URL as the CSP
 * allows, and the secret as text), confirmed by a code; the recovery codes shown once; or turn it off with a code.
 */
const SecondFactorSection = (props: { readonly session: Session; readonly onChange: () => void }) => {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | undefined>(undefined)
  const [code, setCode] = useState("")
  const [recoveryCodes, setRecoveryCodes] = useState<ReadonlyArray<string> | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const on = props.session.operator.secondFactor
  return (
    <section aria-labelledby="second-factor-heading">
      <h2 id="second-factor-heading">Second factor</h2>
      {recoveryCodes === undefined ? null : (
        <div class="note ok" role="status">
          <p>
            The second factor is on. Keep these recovery codes somewhere safe: each logs you in once without the app.
            They are shown only this once.
          </p>
          <ul class="recovery-codes" data-testid="recovery-codes" aria-label="Recovery codes">
            {recoveryCodes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <CopyButton text={recoveryCodes.join("\n")} label="Copy recovery codes" />{" "}
          <button type="button" class="secondary small" onClick={() => setRecoveryCodes(undefined)}>
            I have saved them
          </button>
        </div>
      )}
      <ErrorNote error={error} />
      {on
        ? (
          <form
            class="card"
            onSubmit={(event) => {
              event.preventDefault()
              setError(undefined)
              api.disableSecondFactor(code.trim()).then(() => {
                setCode("")
                setRecoveryCodes(undefined)
                props.onChange()
              }, setError)
            }}
          >
            <p>On: you log in with a code of your authenticator app after the password.</p>
            <Field
              label="Code to turn it off"
              autocomplete="one-time-code"
              required
              minLength={6}
              maxLength={40}
              hint="A code of the app, or a recovery code"
              value={code}
              onInput={(event) => setCode(event.currentTarget.value)}
            />
            <button type="submit" class="danger">Turn off second factor</button>
          </form>
        )
        : enrolment === undefined
        ? (
          <div class="card">
            <p>Off: you log in with your password alone.</p>
            <button
              type="button"
              onClick={() => {
                setError(undefined)
                api.beginSecondFactor().then(setEnrolment, setError)
              }}
            >
              Set up second factor
            </button>
          </div>
        )
        : (
          <form
            class="card"
            onSubmit={(event) => {
              event.preventDefault()
              setError(undefined)
              api.confirmSecondFactor(code.trim()).then((done) => {
                setRecoveryCodes(done.recoveryCodes)
                setEnrolment(undefined)
                setCode("")
                props.onChange()
              }, setError)
            }}
          >
            <p>Scan this code with an authenticator app, or type the secret into it; then enter the code it shows.</p>
            <img
              class="qr"
              width={200}
              height={200}
              alt="QR code of the second factor's secret"
              src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qrSvg)}`}
            />
            <p>
              Secret: <code data-testid="totp-secret">{enrolment.secret}</code>{" "}
              <CopyButton text={enrolment.secret} label="Copy secret" />
            </p>
            <Field
              label="Code from the app"
              autocomplete="one-time-code"
              inputMode="numeric"
              required
              minLength={6}
              maxLength={6}
              value={code}
              onInput={(event) => setCode(event.currentTarget.value)}
            />
            <button type="submit">Turn on second factor</button>
          </form>
        )}
    </section>
  )
}

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
      {props.session.secondFactorRequired && !props.session.operator.secondFactor
        ? (
          <p class="note warn" role="status">
            Every operator must log in with a second factor: set it up below before using the portal.
          </p>
        )
        : null}
      <SecondFactorSection session={props.session} onChange={props.onChange} />
      <ChangePassword />
    </section>
  )
}
