/**
 * The responses simulators share: JSON, redirects carrying OAuth parameters, and the HTML pages a
 * user sees at the authorization endpoint (the consent form and its error page), with how a
 * consent POST is read back.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { SimRequestShape } from "./Request.js"
import type { SimulatorCore } from "./SimulatorCore.js"

export const json = (body: unknown, status = 200, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson(body, headers === undefined ? { status } : { status, headers })

/** A 302 to `target` with `params` added to its query (existing params kept). */
export const redirectWith = (target: string, params: Readonly<Record<string, string | null | undefined>>) => {
  const url = new URL(target)
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) url.searchParams.set(key, value)
  }
  return HttpServerResponse.redirect(url.toString(), { status: 302 })
}

export const isAbsoluteUrl = (value: string | null): value is string => {
  if (value === null || value === "") return false
  try {
    const url = new URL(value)
    return url.protocol !== "javascript:" && url.protocol !== "data:"
  } catch {
    return false
  }
}

export const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
    /'/g,
    "&#39;"
  )

const page = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n` +
  `<body>\n${body}\n</body>\n</html>\n`

/** An authorization-page error: shown to the user, not redirected (unknown client, bad redirect_uri). */
export const errorPage = (providerName: string, message: string, status = 400) =>
  HttpServerResponse.text(
    page(
      `${providerName} sandbox: error`,
      `<h1>${escapeHtml(providerName)} (PulseBridge sandbox)</h1>\n<p class="error">${escapeHtml(message)}</p>`
    ),
    { status, contentType: "text/html; charset=utf-8" }
  )

export const DEFAULT_USER = "sandbox-user"

export interface ConsentPage {
  readonly providerName: string
  readonly clientId: string
  /** Absolute URL the form posts to: the page's own URL, query included. */
  readonly action: string
  /** Checkboxes (name `scope`); omitted when the user has nothing to choose. */
  readonly choices?: ReadonlyArray<{ readonly value: string; readonly checked: boolean }> | undefined
  readonly choicesLabel?: string | undefined
  readonly detail?: string | undefined
  readonly userSuggestions?: ReadonlyArray<string> | undefined
}

/**
 * The consent page. Its form posts `decision=approve|deny`, `user`, the ticked `scope` boxes and
 * a `consent_form` marker: with the marker, only ticked boxes are granted (an unticked box is
 * absent from a form post); a scripted POST without it grants everything asked for.
 */
export const consentPage = (p: ConsentPage) => {
  const choices = p.choices === undefined || p.choices.length === 0 ?
    "" :
    `<fieldset>\n<legend>${escapeHtml(p.choicesLabel ?? "Scopes")}</legend>\n` +
    p.choices.map((c) =>
      `<label><input type="checkbox" name="scope" value="${escapeHtml(c.value)}"${c.checked ? " checked" : ""}> ` +
      `${escapeHtml(c.value)}</label><br>`
    ).join("\n") + "\n</fieldset>\n"
  const list = p.userSuggestions === undefined ?
    "" :
    `<datalist id="users">${p.userSuggestions.map((u) => `<option value="${escapeHtml(u)}">`).join("")}</datalist>\n`
  const body = `<h1>${escapeHtml(p.providerName)} (PulseBridge sandbox)</h1>\n` +
    `<p>The application <strong>${escapeHtml(p.clientId)}</strong> asks for access to your ` +
    `${escapeHtml(p.providerName)} data.</p>\n` +
    (p.detail === undefined ? "" : `<p>${escapeHtml(p.detail)}</p>\n`) +
    `<form method="post" action="${escapeHtml(p.action)}">\n` +
    `<input type="hidden" name="consent_form" value="1">\n` +
    choices +
    `<p><label>Simulated account <input type="text" name="user" value="${DEFAULT_USER}"` +
    `${p.userSuggestions === undefined ? "" : " list=\"users\""}></label></p>\n` + list +
    `<p><button type="submit" name="decision" value="approve">Allow</button>\n` +
    `<button type="submit" name="decision" value="deny">Deny</button></p>\n</form>`
  return HttpServerResponse.text(page(`${p.providerName} sandbox: authorize`, body), {
    contentType: "text/html; charset=utf-8",
    headers: { "cache-control": "no-store" }
  })
}

export interface ConsentDecision {
  readonly decision: "approve" | "deny" | undefined
  readonly user: string
  readonly granted: ReadonlyArray<string>
}

/** Reads a consent POST; see `consentPage` for how scopes are granted. */
export const readConsent = (form: URLSearchParams, requested: ReadonlyArray<string>): ConsentDecision => {
  const raw = form.get("decision")
  const decision = raw === "approve" || raw === "deny" ? raw : undefined
  const name = (form.get("user") ?? "").trim().slice(0, 64)
  const ticked = form.getAll("scope").flatMap((s) => s.split(/[\s+]+/)).filter((s) => s !== "")
  const granted = form.has("consent_form") ? requested.filter((s) => ticked.includes(s)) : requested
  return { decision, user: name === "" ? DEFAULT_USER : name, granted }
}

/** The page's own absolute URL, which the consent form posts back to. */
export const selfUrl = (core: SimulatorCore<unknown>, req: SimRequestShape): string =>
  `${core.url(req.path)}${req.rawQuery === "" ? "" : `?${req.rawQuery}`}`
