/**
 * `pulsebridge api-keys`: create an app's API keys with chosen permissions, list them (prefixes
 * only) and revoke them. Creations and revocations are audited as made by the CLI.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type { Permission } from "@pulsebridge/domain"
import { allPermissions, BadRequest } from "@pulsebridge/domain"
import type { ApiKeyRecord } from "@pulsebridge/server"
import { Apps, Audit, byActor } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { printResult } from "../Output.js"
import { appId, json } from "./Options.js"
import { cli, withServices } from "./Runtime.js"

const parsePermissions = (text: Option.Option<string>) =>
  Option.match(text, {
    onNone: () => Effect.succeed(allPermissions),
    onSome: (raw) => {
      const allowed = allPermissions.join(", ")
      const names = raw.split(",").map((s) => s.trim()).filter((s) => s !== "")
      if (names.length === 0) {
        return Effect.fail(new BadRequest({ message: `--permissions must name at least one of: ${allowed}` }))
      }
      const unknown = names.filter((name) => !(allPermissions as ReadonlyArray<string>).includes(name))
      if (unknown.length > 0) {
        return Effect.fail(
          new BadRequest({
            message: `unknown permission ${unknown.map((u) => `"${u}"`).join(", ")}; allowed: ${allowed}`
          })
        )
      }
      return Effect.succeed(allPermissions.filter((p) => names.includes(p)))
    }
  })

const apiKeyJson = (key: ApiKeyRecord) => ({
  id: key.id,
  prefix: key.prefix,
  permissions: key.permissions,
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt === null ? null : key.revokedAt.toISOString()
})

const apiKeysCreate = Command.make(
  "create",
  {
    app: appId,
    permissions: Options.text("permissions").pipe(
      Options.optional,
      Options.withDescription(`Comma-separated permissions (default: ${allPermissions.join(",")})`)
    ),
    json
  },
  ({ app, json, permissions }) =>
    Effect.gen(function*() {
      const granted: ReadonlyArray<Permission> = yield* parsePermissions(permissions)
      const apps = yield* Apps
      const audit = yield* Audit
      const key = yield* audit.recorded(apps.createApiKey(app, granted), (key) =>
        byActor(cli, {
          action: "apiKey.create",
          targetType: "apiKey",
          targetId: key.id,
          appId: app,
          detail: { name: null, prefix: key.prefix, permissions: key.permissions }
        }))
      yield* printResult(
        json,
        { id: key.id, apiKey: key.apiKey, prefix: key.prefix, permissions: key.permissions },
        () =>
          [
            `Created API key ${key.id} (${key.permissions.join(", ")}).`,
            "It is shown only this once; keep it:",
            `  ${key.apiKey}`
          ].join("\n")
      )
    }).pipe(withServices(json))
).pipe(Command.withDescription("Create an API key of an app"))

const apiKeysList = Command.make("list", { app: appId, json }, ({ app, json }) =>
  Effect.gen(function*() {
    const keys = yield* Effect.flatMap(Apps, (apps) => apps.listApiKeys(app))
    yield* printResult(
      json,
      { apiKeys: keys.map(apiKeyJson) },
      () =>
        keys.length === 0
          ? "No API keys."
          : keys.map((key) =>
            [
              key.id,
              `${key.prefix}...`,
              key.permissions.join(","),
              `created ${key.createdAt.toISOString()}`,
              key.revokedAt === null ? "active" : `revoked ${key.revokedAt.toISOString()}`
            ].join("  ")
          ).join("\n")
    )
  }).pipe(withServices(json))).pipe(
    Command.withDescription("List the API keys of an app (prefixes only; keys are not stored)")
  )

const apiKeysRevoke = Command.make(
  "revoke",
  { id: Args.text({ name: "KEY_ID" }).pipe(Args.withDescription("Id of the API key")), json },
  ({ id, json }) =>
    Effect.gen(function*() {
      const apps = yield* Apps
      const audit = yield* Audit
      const key = yield* audit.recorded(apps.revokeApiKey(id), (key) =>
        byActor(cli, {
          action: "apiKey.revoke",
          targetType: "apiKey",
          targetId: key.id,
          appId: key.appId,
          detail: { prefix: key.prefix }
        }))
      const revokedAt = (key.revokedAt ?? new Date()).toISOString()
      yield* printResult(json, { id: key.id, revokedAt }, () => `Revoked API key ${key.id} (at ${revokedAt}).`)
    }).pipe(withServices(json))
).pipe(Command.withDescription("Revoke an API key; revoking twice is harmless"))

export const apiKeys = Command.make("api-keys").pipe(
  Command.withDescription("Manage the API keys of an app"),
  Command.withSubcommands([apiKeysCreate, apiKeysList, apiKeysRevoke])
)
