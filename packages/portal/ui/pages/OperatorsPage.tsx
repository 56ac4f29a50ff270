/**
 * The operators: email, role, status, second factor and last login of each. An admin creates one (its one-time
 * setup link shown once), changes its role, disables and enables it, and resets its password (a new setup link,
 * its sessions ended) or its second factor; a viewer reads the list. The server refuses what would leave no active
 * admin, and says so here.
 */
import { useEffect, useState } from "preact/hooks"
import { AdminOnly, useIsAdmin } from "../access.js"
import type { Operator, OperatorRole, OperatorWithSetupLink, Session } from "../api.js"
import { api } from "../api.js"
import { Badge, Confirm, CopyValue, ErrorNote, Field, Loading, TableFrame, Time, useLoad } from "../components.js"

type Pending =
  | { readonly _tag: "Disable"; readonly operator: Operator }
  | { readonly _tag: "ResetPassword"; readonly operator: Operator }
  | { readonly _tag: "ResetSecondFactor"; readonly operator: Operator }

/** A one-time setup link, shown once with a copy button. */
const SetupLink = (props: { readonly link: OperatorWithSetupLink; readonly what: string }) => (
  <div class="note ok" role="status">
    <p>
      {props.what}{" "}
      <strong>{props.link.operator.email}</strong>. Send this setup link; it is shown only this once and works until
      {" "}
      <Time at={props.link.setupExpiresAt} />.
    </p>
    <span data-testid="setup-link">
      <CopyValue label="Setup link" value={props.link.setupUrl} />
    </span>
  </div>
)

/** The operator-wide requirement of a second factor: an admin turns it on or off; a viewer reads it. */
const SecondFactorSetting = (props: { readonly hasSecondFactor: boolean; readonly onChange: () => void }) => {
  const settings = useLoad(() => api.settings(), [])
  const [error, setError] = useState<unknown>(undefined)
  const isAdmin = useIsAdmin()
  const required = settings.data?.secondFactorRequired
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Second factor</h2>
      <ErrorNote error={settings.error ?? error} />
      {required === undefined ? null : isAdmin
        ? (
          <label class="check">
            <input
              type="checkbox"
              checked={required}
              onChange={(event) => {
                setError(undefined)
                const secondFactorRequired = event.currentTarget.checked
                api.setSettings({ secondFactorRequired }).then(() => {
                  // An admin without a second factor who has just required one may read nothing more (the server
                  // refuses it) until it sets one up: the session's change sends it to its account page.
                  if (!secondFactorRequired || props.hasSecondFactor) settings.reload()
                  props.onChange()
                }, setError)
              }}
            />{" "}
            Require a second factor of every operator (one without it can do nothing but set it up)
          </label>
        )
        : <p>{required ? "Every operator must log in with a second factor." : "A second factor is optional."}</p>}
    </section>
  )
}

export const OperatorsPage = (props: { readonly session: Session; readonly onChange: () => void }) => {
  const operators = useLoad(() => api.operators(), [])
  const [email, setEmail] = useState("")
  const [role, setRole] = useState<OperatorRole>("viewer")
  const [error, setError] = useState<unknown>(undefined)
  const [link, setLink] = useState<{ readonly link: OperatorWithSetupLink; readonly what: string } | undefined>()
  const [pending, setPending] = useState<Pending | undefined>(undefined)
  useEffect(() => void (document.title = "Operators · PulseBridge admin"), [])

  const act = (run: () => Promise<unknown>) => {
    setError(undefined)
    setLink(undefined)
    return run().then(() => operators.reload(), (e) => {
      setError(e)
      operators.reload()
    })
  }

  return (
    <section>
      <h1>Operators</h1>
      <ErrorNote error={operators.error} />
      <ErrorNote error={error} />
      {link === undefined ? null : <SetupLink link={link.link} what={link.what} />}
      {operators.data === undefined ?
        (operators.loading ? <Loading what="operators" /> : null) :
        (
          <TableFrame label="Operators">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Second factor</th>
                  <th scope="col">Last login</th>
                  <AdminOnly>
                    <th scope="col">Actions</th>
                  </AdminOnly>
                </tr>
              </thead>
              <tbody>
                {operators.data.data.map((operator) => (
                  <tr key={operator.id} data-operator={operator.email}>
                    <td>
                      {operator.email}
                      {operator.id === props.session.operator.id ? <span class="muted small">{` (you)`}</span> : null}
                    </td>
                    <td>{operator.role}</td>
                    <td>
                      <Badge tone={operator.status === "Active" ? "ok" : "bad"}>{operator.status}</Badge>
                    </td>
                    <td>{operator.secondFactor ? "on" : "off"}</td>
                    <td>
                      <Time at={operator.lastLoginAt} />
                    </td>
                    <AdminOnly>
                      <td>
                        <div class="actions">
                          <button
                            type="button"
                            class="secondary small"
                            aria-label={`${
                              operator.role === "admin" ? "Make viewer" : "Make admin"
                            }: ${operator.email}`}
                            onClick={() =>
                              act(() => api.setRole(operator.id, operator.role === "admin" ? "viewer" : "admin"))}
                          >
                            {operator.role === "admin" ? "Make viewer" : "Make admin"}
                          </button>
                          {operator.status === "Active"
                            ? (
                              <button
                                type="button"
                                class="secondary small"
                                aria-label={`Disable ${operator.email}`}
                                onClick={() => setPending({ _tag: "Disable", operator })}
                              >
                                Disable
                              </button>
                            )
                            : (
                              <button
                                type="button"
                                class="secondary small"
                                aria-label={`Enable ${operator.email}`}
                                onClick={() => act(() => api.enableOperator(operator.id))}
                              >
                                Enable
                              </button>
                            )}
                          <button
                            type="button"
                            class="secondary small"
                            aria-label={`Reset password of ${operator.email}`}
                            onClick={() => setPending({ _tag: "ResetPassword", operator })}
                          >
                            Reset password
                          </button>
                          {operator.secondFactor
                            ? (
                              <button
                                type="button"
                                class="secondary small"
                                aria-label={`Reset second factor of ${operator.email}`}
                                onClick={() => setPending({ _tag: "ResetSecondFactor", operator })}
                              >
                                Reset second factor
                              </button>
                            )
                            : null}
                        </div>
                      </td>
                    </AdminOnly>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      {pending?._tag === "Disable"
        ? (
          <Confirm
            title="Disable this operator?"
            confirmLabel="Disable operator"
            onClose={() => setPending(undefined)}
            onConfirm={() => api.disableOperator(pending.operator.id).then(() => operators.reload())}
          >
            <p>
              {pending.operator.email} is logged out at once and cannot log in until enabled again.
            </p>
          </Confirm>
        )
        : null}
      {pending?._tag === "ResetPassword"
        ? (
          <Confirm
            title="Reset this operator's password?"
            confirmLabel="Reset password"
            onClose={() => setPending(undefined)}
            onConfirm={() =>
              api.resetPassword(pending.operator.id).then((done) => {
                setLink({ link: done, what: "New password setup for" })
                operators.reload()
              })}
          >
            <p>
              The password of {pending.operator.email}{" "}
              stops working and its sessions end; a new setup link is shown once, to send it.
            </p>
          </Confirm>
        )
        : null}
      {pending?._tag === "ResetSecondFactor"
        ? (
          <Confirm
            title="Reset this operator's second factor?"
            confirmLabel="Reset second factor"
            onClose={() => setPending(undefined)}
            onConfirm={() => api.resetSecondFactor(pending.operator.id).then(() => operators.reload())}
          >
            <p>
              {pending.operator.email} logs in with the password alone until it sets up a second factor again.
            </p>
          </Confirm>
        )
        : null}
      <SecondFactorSetting hasSecondFactor={props.session.operator.secondFactor} onChange={props.onChange} />
      <AdminOnly>
        <h2>Create an operator</h2>
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault()
            setError(undefined)
            setLink(undefined)
            api.createOperator(email.trim(), role).then((created) => {
              setLink({ link: created, what: "Created" })
              setEmail("")
              operators.reload()
            }, setError)
          }}
        >
          <Field
            label="Operator email"
            type="email"
            required
            maxLength={254}
            autocomplete="off"
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
          <div class="field">
            <label for="new-operator-role">Role</label>
            <select
              id="new-operator-role"
              value={role}
              onChange={(event) => setRole(event.currentTarget.value as OperatorRole)}
            >
              <option value="viewer">Viewer (reads, changes nothing)</option>
              <option value="admin">Admin (changes anything)</option>
            </select>
          </div>
          <button type="submit">Create operator</button>
        </form>
      </AdminOnly>
    </section>
  )
}
