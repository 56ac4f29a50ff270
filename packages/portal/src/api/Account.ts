/**
 * The signed-in operator's own account: its password and its second factor (TOTP). Every endpoint here is
 * `OwnAccount`: a viewer may call it too.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { BadRequest, TooManyRequests } from "@pulsebridge/domain"
import * as Schema from "effect/Schema"
import { OperatorPassword, OwnAccount, PortalAuth } from "./Session.js"

export class ChangePasswordPayload extends Schema.Class<ChangePasswordPayload>("ChangePasswordPayload")({
  currentPassword: Schema.String.pipe(Schema.maxLength(1024)),
  newPassword: OperatorPassword
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
  .middleware(PortalAuth)
  .annotate(OpenApi.Exclude, true)
{}
