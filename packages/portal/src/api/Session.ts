/**
 * The portal's session: operators, the login and setup-link endpoints, and `PortalAuth`, the session
 * cookie and CSRF check every other group of the portal's API sits behind.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, Forbidden, Timestamp, TooManyRequests, Unauthorized, uuidId } from "@pulsebridge/domain"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"

export const OperatorId = uuidId("OperatorId")
export type OperatorId = typeof OperatorId.Type

/** The session cookie: HttpOnly, Secure, SameSite=Strict, Path=/portal. */
export const sessionCookieName = "pb_portal_session"
/** The header every change carries: the session's CSRF token. */
export const csrfHeaderName = "x-csrf-token"

export const OperatorEmail = Schema.String.pipe(
  Schema.trimmed(),
  Schema.minLength(3),
  Schema.maxLength(254),
  Schema.pattern(/^[^\s@]+@[^\s@]+$/, { message: () => "must be an email address" })
).annotations({ identifier: "OperatorEmail" })

/** At least 12 characters; at most 1,024 so hashing cost stays bounded. */
export const OperatorPassword = Schema.String.pipe(Schema.minLength(12), Schema.maxLength(1024)).annotations({
  identifier: "OperatorPassword"
})

export const OperatorStatus = Schema.Literal("Active", "Disabled")

/** `admin` changes anything; `viewer` reads everything and changes nothing but its own password and second factor. */
export const OperatorRole = Schema.Literal("admin", "viewer").annotations({ identifier: "OperatorRole" })
export type OperatorRole = typeof OperatorRole.Type

export class Operator extends Schema.Class<Operator>("Operator")({
  id: OperatorId,
  email: Schema.String,
  status: OperatorStatus,
  role: OperatorRole,
  secondFactor: Schema.Boolean.annotations({ description: "Whether the operator logs in with a TOTP code too" }),
  createdAt: Timestamp,
  lastLoginAt: Schema.NullOr(Timestamp)
}) {}

/** The operator a request's session belongs to. */
export class CurrentOperator extends Context.Tag("@pulsebridge/server/CurrentOperator")<CurrentOperator, {
  readonly operatorId: OperatorId
  readonly email: string
  readonly sessionId: string
  readonly role: OperatorRole
}>() {}

/**
 * Marks an endpoint by which operators change only their own account (log out, their password, their second
 * factor): a viewer may call it too. Every other change needs an admin (`PortalAuth` answers 403).
 */
export class OwnAccount extends Context.Tag("@pulsebridge/portal/OwnAccount")<OwnAccount, true>() {}

/**
 * Marks an endpoint an operator may call while the second factor is required and it has none yet: the session,
 * logging out, and setting the second factor up. Every other route answers 403 until it is set up.
 */
export class BeforeSecondFactor
  extends Context.Tag("@pulsebridge/portal/BeforeSecondFactor")<BeforeSecondFactor, true>()
{}

/**
 * Checks the session cookie (401 when missing, unknown, expired or the operator is disabled) and, on
 * every method but GET and HEAD, the `X-CSRF-Token` header against the session's token (403), and that the
 * operator may make the change: a viewer only on its own account (`OwnAccount`), anyone only after setting up
 * the second factor while it is required (`BeforeSecondFactor`) (403).
 */
export class PortalAuth extends HttpApiMiddleware.Tag<PortalAuth>()("PortalAuth", {
  failure: Schema.Union(Unauthorized, Forbidden),
  provides: CurrentOperator,
  security: {
    portalSession: HttpApiSecurity.apiKey({ key: sessionCookieName, in: "cookie" })
  }
}) {}

/** A TOTP code (6 digits) or a recovery code (letters and digits, dashes and spaces ignored). */
export const SecondFactorCode = Schema.String.pipe(Schema.minLength(6), Schema.maxLength(40)).annotations({
  identifier: "SecondFactorCode"
})

export class PortalSession extends Schema.Class<PortalSession>("PortalSession")({
  operator: Operator,
  secondFactorRequired: Schema.Boolean.annotations({
    description: "Whether every operator must log in with a second factor (an operator without one must set it up)"
  }),
  csrfToken: Schema.String,
  sandbox: Schema.Boolean.annotations({ description: "Whether the server runs in sandbox mode (the sandbox page)" }),
  publicUrl: Schema.String.annotations({ description: "The server's public base URL" })
}) {}

/**
 * The pages' first question: the session, or null when the request carries no session cookie at all (no one has
 * logged in in this browser, or the operator logged out), which is not an error to log.
 */
export class SessionState extends Schema.Class<SessionState>("SessionState")({
  session: Schema.NullOr(PortalSession)
}) {}

export class LoginPayload extends Schema.Class<LoginPayload>("LoginPayload")({
  email: Schema.String.pipe(Schema.maxLength(254)),
  password: Schema.String.pipe(Schema.maxLength(1024))
}) {}

/**
 * The password was right and the operator logs in with TOTP too: the pending login, kept by the server for
 * five minutes, which the second step names.
 */
export class SecondFactorChallenge extends Schema.TaggedClass<SecondFactorChallenge>()("SecondFactorChallenge", {
  challenge: Schema.String,
  expiresAt: Timestamp
}) {}

export class SecondFactorLoginPayload extends Schema.Class<SecondFactorLoginPayload>("SecondFactorLoginPayload")({
  challenge: Schema.String.pipe(Schema.maxLength(200)),
  code: SecondFactorCode
}) {}

/** Sets the password of an operator created without one, with the token of its one-time setup link. */
export class SetupPayload extends Schema.Class<SetupPayload>("SetupPayload")({
  token: Schema.String.pipe(Schema.maxLength(200)),
  password: OperatorPassword
}) {}

export class SessionGroup extends HttpApiGroup.make("portalSession")
  .add(
    HttpApiEndpoint.post("login", "/portal/api/login")
      .setPayload(LoginPayload)
      .addSuccess(Schema.Union(PortalSession, SecondFactorChallenge))
      .addError(Unauthorized)
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Sets the session cookie, or, for an operator with TOTP, answers a challenge for the second step. A " +
          "wrong email or password is one generic 401; failed attempts grow the delay before the next attempt " +
          "from that address (up to 15 minutes) and for that email (up to 5 s), and a server busy checking other " +
          "passwords asks to wait 1 s (429 with retryAfterSeconds)."
      )
  )
  .add(
    HttpApiEndpoint.post("loginSecondFactor", "/portal/api/login/second-factor")
      .setPayload(SecondFactorLoginPayload)
      .addSuccess(PortalSession)
      .addError(Unauthorized)
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "The login's second step: a TOTP code or a recovery code for the challenge; sets the session cookie. " +
          "Wrong codes count as failed logins; a challenge dies after 5 wrong codes or 5 minutes."
      )
  )
  .add(
    HttpApiEndpoint.post("setup", "/portal/api/setup")
      .setPayload(SetupPayload)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequest)
      .addError(TooManyRequests)
      .annotate(
        OpenApi.Description,
        "Sets the password of a setup link's operator. An unknown, used or expired token is a 400; failed " +
          "attempts grow the delay before the next one from that address (429 with retryAfterSeconds)."
      )
  )
  .add(
    HttpApiEndpoint.get("session", "/portal/api/session").addSuccess(PortalSession).middleware(PortalAuth)
      .annotate(BeforeSecondFactor, true)
  )
  .add(
    HttpApiEndpoint.get("current", "/portal/api/session/current")
      .addSuccess(SessionState)
      .addError(Unauthorized)
      .annotate(
        OpenApi.Description,
        "The session of the request's cookie, or null without a cookie; a cookie that names no live session is a " +
          "401, as on every other route"
      )
  )
  .add(
    HttpApiEndpoint.post("logout", "/portal/api/logout").addSuccess(HttpApiSchema.NoContent).middleware(PortalAuth)
      .annotate(OwnAccount, true)
      .annotate(BeforeSecondFactor, true)
  )
  .annotate(OpenApi.Exclude, true)
{}
