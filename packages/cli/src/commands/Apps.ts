/**
 * `pulsebridge apps`: create an app (with its first API key) and list the apps.
 */
import { Command, Options } from "@effect/cli"
import type { App } from "@pulsebridge/server"
import { Apps } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import { printResult } from "../Output.js"
import { json } from "./Options.js"
import { withServices } from "./Runtime.js"

const appJson = (app: App) => ({ id: app.id, name: app.name, createdAt: app.createdAt.toISOString() })

const appsCreate = Command.make(
  "create",
  { name: Options.text("name").pipe(Options.withDescription("Name of the app")), json },
  ({ json, name }) =>
    Effect.gen(function*() {
      const created = yield* Effect.flatMap(Apps, (apps) => apps.create(name))
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

export const apps = Command.make("apps").pipe(
  Command.withDescription("Manage apps (the tenants)"),
  Command.withSubcommands([appsCreate, appsList])
)
