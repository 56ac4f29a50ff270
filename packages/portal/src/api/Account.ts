/**
 * The signed-in operator's own account: its password and its second factor (TOTP). Every endpoint here is
 * `OwnAccount`: a viewer may call it too.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, Conflict, TooManyRequests } from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { BeforeSecondFactor, OperatorPassword, OwnAccount, PortalAuth, SecondFactorCode } from "./Session.js"

export class ChangePasswordPayload extends Schema.Class<ChangePasswordPayload>("ChangePasswordPayload")({
  currentPassword: Schema.String.pipe(Schema.maxLength(1024)),
  newPassword: OperatorPassword
}) {}

/** A TOTP enrolment begun: the secret to enter in an authenticator app, as text and as a QR code. */
export class TotpEnrolment extends Schema.Class<TotpEnrolment>("TotpEnrolment")({
  secret: Schema.String.annotations({ description: "The TOTP secret in base32, for typing into the app" }),
  otpauthUri: Schema.String.annotations({ description: "The `otpauth://totp/...` URI the QR code holds" }),
  qrSvg: Schema.String.annotations({ description: "The QR code of the URI, as an SVG document" })
}) {}

export class CodePayload extends Schema.Class<CodePayload>("CodePayload")({ code: SecondFactorCode }) {}

export class RecoveryCodes extends Schema.Class<RecoveryCodes>("RecoveryCodes")({
  recoveryCodes: Schema.Array(Schema.String).annotations({
    description: "Ten one-time codes that stand in for the app: shown this once, never again"
  })
}) {}

export class AccountGroup extends HttpApiGroup.make("portalAccount")
  .add(
    HttpApiEndpoint.post("changePassword", "/portal/api/account/password")
      .setPayload(ChangePasswordPayload)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequest)
      .addError(TooManyRequests)
      .annotate(OwnAccount, true)
      .annotate(
        OpenApi.Description,
        "Changes the operator's own password; the current one is required (a wrong one counts as a failed login). " +
          "The operator's other sessions end."
      )
  )
  .add(
    HttpApiEndpoint.post("beginSecondFactor", "/portal/api/account/second-factor")
      .addSuccess(TotpEnrolment)
      .addError(Conflict)
      .annotate(OwnAccount, true)
      .annotate(BeforeSecondFactor, true)
      .annotate(
        OpenApi.Description,
        "Begins setting up TOTP (SHA-1, 6 digits, 30 s): a new secret, not in effect until confirmed with a code"
      )
  )
  .add(
    HttpApiEndpoint.post("confirmSecondFactor", "/portal/api/account/second-factor/confirm")
      .setPayload(CodePayload)
      .addSuccess(RecoveryCodes)
      .addError(BadRequest)
      .addError(TooManyRequests)
      .annotate(OwnAccount, true)
      .annotate(BeforeSecondFactor, true)
      .annotate(OpenApi.Description, "Turns TOTP on with a code of the new secret; answers ten recovery codes once")
  )
  .add(
    HttpApiEndpoint.post("disableSecondFactor", "/portal/api/account/second-factor/disable")
      .setPayload(CodePayload)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequest)
      .addError(Conflict)
      .addError(TooManyRequests)
      .annotate(OwnAccount, true)
      .annotate(OpenApi.Description, "Turns TOTP off with a current code (or a recovery code)")
  )
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
