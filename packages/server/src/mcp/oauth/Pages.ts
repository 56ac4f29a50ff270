/**
 * The authorization server's HTML pages: the consent page (which client, which app, which data, read-only;
 * Approve / Deny in a form that needs no script), the sandbox's demo sign-in page, and the error page shown
 * where the client cannot be trusted with a redirect. Every page is served with `Cache-Control: no-store`,
 * `X-Frame-Options: DENY`, `frame-ancestors 'none'` and no referrer (a sign-in link carries a one-use secret).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { ConsentView } from "./Authorization.js"
import type { McpScope } from "./Rules.js"
import { scopeDescriptions } from "./Rules.js"

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

export const pageHeaders = {
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff"
} as const

const style = `
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5;
  color: #1a1a1a; }
h1 { font-size: 1.4rem; }
ul { padding-left: 1.2rem; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
button { font-size: 1rem; padding: 0.6rem 1.2rem; border-radius: 0.4rem; border: 1px solid #555; cursor: pointer; }
button.primary { background: #1d4ed8; color: #fff; border-color: #1d4ed8; }
button:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.note { color: #444; font-size: 0.9rem; }
`

const page = (title: string, body: string, status = 200) =>
  HttpServerResponse.text(
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`,
    { status, headers: pageHeaders, contentType: "text/html; charset=utf-8" }
  )

export const errorPage = (message: string, status: number) =>
  page(
    "Cannot connect the assistant",
    `<h1>Cannot connect the assistant</h1>
<p role="alert">${escapeHtml(message)}</p>`,
    status
  )

export const consentPage = (view: ConsentView) => {
  const client = view.clientUri === null
    ? `<strong>${escapeHtml(view.clientName)}</strong>`
    : `<strong>${escapeHtml(view.clientName)}</strong> (<a href="${
      escapeHtml(view.clientUri)
    }" rel="noopener noreferrer">${escapeHtml(view.clientUri)}</a>)`
  const scopes = view.scopes.map((scope) =>
    `<li>${escapeHtml(scopeDescriptions[scope as McpScope] ?? scope)} <span class="note">(${
      escapeHtml(scope)
    })</span></li>`
  ).join("\n")
  return page(
    `Allow ${view.clientName} to read your data?`,
    `<h1>Allow ${escapeHtml(view.clientName)} to read your ${escapeHtml(view.appName)} data?</h1>
<p>${client} asks to read, on behalf of your account with <strong>${escapeHtml(view.appName)}</strong>:</p>
<ul aria-label="Data the assistant may read">
${scopes}
</ul>
<p>Read-only: it cannot change, delete or add anything. You can withdraw this access at any time in ${
      escapeHtml(view.appName)
    }.</p>
<p class="note">After your answer you go back to ${escapeHtml(view.redirectHost)}. Client id: ${
      escapeHtml(view.clientId)
    }</p>
<form method="post" action="/oauth/consent">
<input type="hidden" name="assertion" value="${escapeHtml(view.assertion)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`
  )
}

/** The sandbox's demo of an app's sign-in page: pick one of the app's sandbox test users. */
export const demoSignInPage = (
  appName: string,
  request: string,
  users: ReadonlyArray<{ readonly id: string; readonly externalUserId: string }>
) =>
  page(
    `Sign in to ${appName} (sandbox)`,
    `<h1>Sign in to ${escapeHtml(appName)}</h1>
<p class="note">Sandbox demo: this page stands in for the app's own sign-in. Pick the test user to sign in as.</p>
${
      users.length === 0
        ? `<p role="alert">This app has no sandbox test users yet: make one on the portal's sandbox page.</p>`
        : `<form method="post" action="/sandbox/mcp-sign-in">
<input type="hidden" name="pb_request" value="${escapeHtml(request)}">
<fieldset>
<legend>Test user</legend>
${
          users.map((user, i) =>
            `<div><input type="radio" id="user-${i}" name="userId" value="${escapeHtml(user.id)}"${
              i === 0 ? " checked" : ""
            }> <label for="user-${i}">${escapeHtml(user.externalUserId)}</label></div>`
          ).join("\n")
        }
</fieldset>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`
    }`
  )
