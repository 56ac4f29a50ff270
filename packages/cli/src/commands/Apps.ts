/**
 * `pulsebridge apps`: create an app (with its first API key) and list the apps. A creation is audited
 * (the app and its key) as made by the CLI.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { allPermissions, BadRequest } from "@pulsebridge/domain"
import type { App } from "@pulsebridge/server"
import { Apps, Audit, byActor, displayPrefix, ServerConfig } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { printResult } from "../Output.js"
import { appId, json } from "./Options.js"
import { cli, withServices } from "./Runtime.js"

const appJson = (app: App) => ({ id: app.id, name: app.name, createdAt: app.createdAt.toISOString() })

const appsCreate = Command.make(
  "create",
  { name: Options.text("name").pipe(Options.withDescription("Name of the app")), json },
  ({ json, name }) =>
    Effect.gen(function*() {
      const apps = yield* Apps
      const audit = yield* Audit
      const created = yield* audit.recorded(apps.create(name), (created) => [
        byActor(cli, {
          action: "app.create",
          targetType: "app",
          targetId: created.app.id,
          appId: created.app.id,
          detail: { name }
        }),
        byActor(cli, {
          action: "apiKey.create",
          targetType: "apiKey",
          targetId: created.apiKeyId,
          appId: created.app.id,
          detail: { name: null, prefix: displayPrefix(created.apiKey), permissions: allPermissions }
        })
      ])
      yield* printResult(
        json,
        { app: appJson(created.app), apiKey: created.apiKey },
        () =>
          [
            `Created app "${created.app.name}" (id ${created.app.id}).`,
            "Its API key is shown only this once; keep it:",
            `  ${created.apiKey}`
          ].join("\n")
      )
    }).pipe(withServices(json))
).pipe(Command.withDescription("Create an app and its first API key (with every permission)"))

const appsList = Command.make("list", { json }, ({ json }) =>
  Effect.gen(function*() {
    const apps = yield* Effect.flatMap(Apps, (apps) => apps.list)
    yield* printResult(
      json,
      { apps: apps.map(appJson) },
      () =>
        apps.length === 0
          ? "No apps."
          : apps.map((app) => `${app.id}  ${app.createdAt.toISOString()}  ${app.name}`).join("\n")
    )
  }).pipe(withServices(json))).pipe(Command.withDescription("List the apps"))

const appsSignIn = Command.make(
  "assistant-sign-in",
  {
    app: appId,
    url: Options.text("url").pipe(
      Options.optional,
      Options.withDescription(
        "The app's assistant sign-in URL (https), where PulseBridge sends an assistant's OAuth sign-in " +
          "(docs/mcp.md); without --url, the current one is shown"
      )
    ),
    clear: Options.boolean("clear").pipe(Options.withDescription("Remove the URL: assistants can no longer sign in")),
    json
  },
  ({ app, clear, json, url }) =>
    Effect.gen(function*() {
      const apps = yield* Apps
      const config = yield* ServerConfig
      if (clear || Option.isSome(url)) {
        const value = clear ? null : Option.getOrThrow(url)
        const audit = yield* Audit
        yield* audit.recorded(
          apps.setAssistantSignInUrl(app, value, { sandbox: config.sandbox }).pipe(
            Effect.catchTag("SignInUrlRefused", (refused) => Effect.fail(new BadRequest({ message: refused.message })))
          ),
          () => [
            byActor(cli, {
              action: "app.assistantSignIn",
              targetType: "app",
              targetId: app,
              appId: app,
              detail: { assistantSignInUrl: value }
            })
          ]
        )
      }
      const current = yield* apps.assistantSignInUrl(app)
      yield* printResult(
        json,
        { appId: app, assistantSignInUrl: current },
        () => current === null ? "The app has no assistant sign-in URL." : `Assistant sign-in URL: ${current}`
      )
    }).pipe(withServices(json))
).pipe(Command.withDescription("Show or set the app's assistant sign-in URL (MCP OAuth)"))

export const apps = Command.make("apps").pipe(
  Command.withDescription("Manage apps (the tenants)"),
  Command.withSubcommands([appsCreate, appsList, appsSignIn])
)
