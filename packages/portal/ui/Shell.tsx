/**
 * The portal's frame: it asks the server for the session (the login page when there is none), keeps
 * the CSRF token for the client, and lays out the header (navigation, the operator, log out) around
 * the page the path names.
 */
import { useEffect, useState } from "preact/hooks"
import { RoleContext } from "./access.js"
import type { Session } from "./api.js"
import { api, setCsrfToken, setUnauthorizedHandler } from "./api.js"
import { ErrorNote, Link, message } from "./components.js"
import { AccountPage } from "./pages/AccountPage.js"
import { AppPage } from "./pages/AppPage.js"
import { AppsPage } from "./pages/AppsPage.js"
import { AuditPage } from "./pages/AuditPage.js"
import { LoginPage } from "./pages/LoginPage.js"
import { OperatorsPage } from "./pages/OperatorsPage.js"
import { OverviewPage } from "./pages/OverviewPage.js"
import { SandboxPage } from "./pages/SandboxPage.js"
import { SetupPage } from "./pages/SetupPage.js"
import { UserPage } from "./pages/UserPage.js"
import { WebhookEndpointPage } from "./pages/WebhookEndpointPage.js"
import { match, navigate, useLocation } from "./router.js"

type SessionState =
  | { readonly _tag: "Loading" }
  | { readonly _tag: "LoggedOut" }
  | { readonly _tag: "Failed"; readonly error: unknown }
  | { readonly _tag: "LoggedIn"; readonly session: Session }

const Page = (props: { readonly path: string; readonly session: Session; readonly onChange: () => void }) => {
  const { path, session } = props
  // Until the required second factor is set up, the server refuses everything else: the account page is all, at
  // its own address, so that it stays once the second factor is on (its recovery codes are shown there).
  const mustEnrol = session.secondFactorRequired && !session.operator.secondFactor
  if (mustEnrol && path !== "/portal/account") return <Redirect to="/portal/account" />
  if (path === "/portal/account") return <AccountPage session={session} onChange={props.onChange} />
  if (path === "/portal" || path === "/portal/" || path === "/portal/login") return <AppsPage />
  if (path === "/portal/overview") return <OverviewPage />
  if (path === "/portal/audit") return <AuditPage />
  if (path === "/portal/operators") return <OperatorsPage session={session} onChange={props.onChange} />
  if (path === "/portal/sandbox") {
    if (session.sandbox && session.operator.role !== "admin") {
      return <NotFound text="The sandbox page makes test users and changes the simulators: it is for admins." />
    }
    return session.sandbox ? <SandboxPage /> : <NotFound text="The sandbox page exists only in sandbox mode." />
  }
  const user = match("/portal/apps/:appId/users/:userId", path)
  if (user !== undefined) return <UserPage appId={user.appId!} userId={user.userId!} sandbox={session.sandbox} />
  const endpoint = match("/portal/apps/:appId/webhooks/:endpointId", path)
  if (endpoint !== undefined) return <WebhookEndpointPage appId={endpoint.appId!} endpointId={endpoint.endpointId!} />
  const app = match("/portal/apps/:appId", path) ?? match("/portal/apps/:appId/:tab", path)
  if (app !== undefined) return <AppPage appId={app.appId!} tab={app.tab ?? "keys"} session={session} />
  return <NotFound text="There is no page at this address." />
}

const Redirect = (props: { readonly to: string }) => {
  useEffect(() => navigate(props.to, { replace: true }), [props.to])
  return null
}

const NotFound = (props: { readonly text: string }) => {
  useEffect(() => void (document.title = "Not found · PulseBridge admin"), [])
  return (
    <section>
      <h1>Not found</h1>
      <p>{props.text}</p>
      <p>
        <Link href="/portal">Back to the apps</Link>
      </p>
    </section>
  )
}

export const Shell = () => {
  const [state, setState] = useState<SessionState>({ _tag: "Loading" })
  const location = useLocation()

  const loggedIn = (session: Session) => {
    setCsrfToken(session.csrfToken)
    setState({ _tag: "LoggedIn", session })
  }

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setCsrfToken(undefined)
      setState({ _tag: "LoggedOut" })
    })
    api.session().then(
      (session) => session === null ? setState({ _tag: "LoggedOut" }) : loggedIn(session),
      (error) => setState(error.status === 401 ? { _tag: "LoggedOut" } : { _tag: "Failed", error })
    )
  }, [])

  // The setup link is opened by an operator who has no password yet, so it needs no session.
  if (location.path === "/portal/setup") {
    return (
      <main id="main" class="center">
        <SetupPage />
      </main>
    )
  }
  if (state._tag === "Loading") {
    return (
      <main id="main" class="center">
        <p class="muted">Loading…</p>
      </main>
    )
  }
  if (state._tag === "Failed") {
    return (
      <main id="main" class="center">
        <h1>The portal cannot reach the server</h1>
        <ErrorNote error={state.error} />
      </main>
    )
  }
  if (state._tag === "LoggedOut") {
    return (
      <main id="main" class="center">
        <LoginPage
          onLoggedIn={(session) => {
            loggedIn(session)
            if (location.path === "/portal/login") navigate("/portal", { replace: true })
          }}
        />
      </main>
    )
  }
  const { session } = state
  const current = (href: string) =>
    (href === "/portal"
        ? location.path === "/portal" || location.path === "/portal/" || location.path.startsWith("/portal/apps")
        : location.path.startsWith(href))
      ? "page"
      : undefined
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <Link href="/portal" class="brand">PulseBridge admin</Link>
        <nav aria-label="Main">
          <Link href="/portal/overview" aria-current={current("/portal/overview")}>Overview</Link>
          <Link href="/portal" aria-current={current("/portal")}>Apps</Link>
          <Link href="/portal/audit" aria-current={current("/portal/audit")}>Audit log</Link>
          <Link href="/portal/operators" aria-current={current("/portal/operators")}>Operators</Link>
          {session.sandbox && session.operator.role === "admin"
            ? <Link href="/portal/sandbox" aria-current={current("/portal/sandbox")}>Sandbox</Link>
            : null}
        </nav>
        <div class="operator">
          <span class="muted small" data-testid="operator">{session.operator.email}</span>
          <Link href="/portal/account" class="small" aria-current={current("/portal/account")}>Account</Link>
          {session.operator.role === "viewer" ? <span class="badge info">viewer</span> : null}
          <button
            type="button"
            class="secondary small"
            onClick={() =>
              api.logout().then(
                () => {
                  setCsrfToken(undefined)
                  setState({ _tag: "LoggedOut" })
                },
                (error) => alert(message(error))
              )}
          >
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <RoleContext.Provider value={session.operator.role}>
          <Page
            path={location.path}
            session={session}
            onChange={() =>
              api.session().then(
                (session) => session === null ? setState({ _tag: "LoggedOut" }) : loggedIn(session),
                () => setState({ _tag: "LoggedOut" })
              )}
          />
        </RoleContext.Provider>
      </main>
    </>
  )
}
