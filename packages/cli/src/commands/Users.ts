/**
 * `pulsebridge users`: list an app's users (paged, newest first, with the portal's query),
 * create (or find by external id), show, update, soft-delete an app's users
 * and rotate their tokens, printing users as the API's JSON has them; erase a user (the whole
 * erasure runs in the command, as the server's background would run it; audited as made by the CLI)
 * and export one as NDJSON on stdout.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { CreateUserPayload, UpdateUserPayload, User } from "@pulsebridge/domain"
import { UserSummary } from "@pulsebridge/portal/api/Users"
import { Audit, byActor, defaultPageSize, UserDirectoryRepo, UserExport, Users } from "@pulsebridge/server"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { printResult } from "../Output.js"
import { appId, decodeInput, given, json, locale, metadata, parseMetadata, timezone, userId } from "./Options.js"
import { cli, requireApp, withServices } from "./Runtime.js"

/** The user as the API's JSON has it. */
const userJson = (user: User) => Schema.encode(User)(user).pipe(Effect.orDie)

const userText = (user: typeof User.Encoded) =>
  [
    `User ${user.id} (${user.status})`,
    `  externalUserId: ${user.externalUserId}`,
    `  locale:         ${user.locale}`,
    `  timezone:       ${user.timezone}`,
    `  metadata:       ${JSON.stringify(user.metadata)}`,
    `  createdAt:      ${user.createdAt}`,
    `  updatedAt:      ${user.updatedAt}`
  ].join("\n")

const usersCreate = Command.make(
  "create",
  {
    app: appId,
    externalUserId: Options.text("external-user-id").pipe(
      Options.withDescription("The app's own id of the user; unique within the app")
    ),
    locale,
    timezone,
    metadata,
    json
  },
  (args) =>
    Effect.gen(function*() {
      const id = yield* requireApp(args.app)
      const payload = yield* decodeInput(
        CreateUserPayload,
        given({
          externalUserId: args.externalUserId,
          locale: Option.getOrUndefined(args.locale),
          timezone: Option.getOrUndefined(args.timezone),
          metadata: yield* parseMetadata(args.metadata)
        })
      )
      const { created, token, user } = yield* Effect.flatMap(Users, (users) => users.create(id, payload))
      const encoded = yield* userJson(user)
      yield* printResult(
        args.json,
        { user: encoded, token, created },
        () =>
          [
            created ? "Created user:" : "The user existed (now Active); a fresh token was issued:",
            userText(encoded),
            "Its token is shown only this once; keep it:",
            `  ${token}`
          ].join("\n")
      )
    }).pipe(withServices(args.json))
).pipe(Command.withDescription("Create a user, or find the one with this external id; issues a fresh token"))

/** The limit, as the portal's list takes it. */
const PageSize = Schema.Int.pipe(
  Schema.between(1, 200, { message: () => "--limit must be an integer from 1 to 200" })
)

const encodeSummary = Schema.encode(UserSummary)

/** Pads each column to its widest cell. */
const table = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n")
}

const usersList = Command.make(
  "list",
  {
    app: appId,
    limit: Options.integer("limit").pipe(
      Options.optional,
      Options.withDescription(`Users per page, 1 to 200 (default ${defaultPageSize})`)
    ),
    cursor: Options.text("cursor").pipe(
      Options.optional,
      Options.withDescription("The next cursor a previous page printed")
    ),
    search: Options.text("search").pipe(
      Options.optional,
      Options.withDescription("Only users whose external id starts with this text (any case; % and _ are literal)")
    ),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const app = yield* requireApp(args.app)
      const limit = yield* decodeInput(PageSize, Option.getOrElse(args.limit, () => defaultPageSize))
      const page = yield* Effect.flatMap(UserDirectoryRepo, (repo) =>
        repo.page({
          appId: app,
          search: Option.getOrUndefined(args.search),
          cursor: Option.getOrUndefined(args.cursor),
          limit
        }))
      const data = yield* Effect.forEach(page.data, (row) => encodeSummary(new UserSummary(row))).pipe(Effect.orDie)
      yield* printResult(args.json, { data, nextCursor: page.nextCursor }, () =>
        [
          data.length === 0 ? "No users." : table([
            ["ID", "EXTERNAL ID", "STATUS", "CREATED", "CONNECTIONS"],
            ...data.map((user) => [
              user.id,
              user.externalUserId,
              user.status,
              user.createdAt,
              user.connections.map((c) => `${c.provider} ${c.status}/${c.syncState}`).join(", ")
            ])
          ]),
          ...(page.nextCursor === null ? [] : ["", `Next page: --cursor ${page.nextCursor}`])
        ].join("\n"))
    }).pipe(Effect.provide(UserDirectoryRepo.Default), withServices(args.json))
).pipe(Command.withDescription("List an app's users, newest first, a page at a time"))

const usersGet = Command.make("get", { app: appId, id: userId, json }, ({ app, id, json }) =>
  Effect.gen(function*() {
    const appId = yield* requireApp(app)
    const encoded = yield* Effect.flatMap(Users, (users) => users.get(appId, id)).pipe(Effect.flatMap(userJson))
    yield* printResult(json, encoded, () => userText(encoded))
  }).pipe(withServices(json))).pipe(Command.withDescription("Show a user"))

const usersFind = Command.make(
  "find",
  {
    app: appId,
    externalUserId: Options.text("external-user-id").pipe(Options.withDescription("The app's own id of the user")),
    json
  },
  ({ app, externalUserId, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      const encoded = yield* Effect.flatMap(Users, (users) => users.findByExternalId(appId, externalUserId)).pipe(
        Effect.flatMap(userJson)
      )
      yield* printResult(json, encoded, () => userText(encoded))
    }).pipe(withServices(json))
).pipe(Command.withDescription("Look a user up by the app's own id"))

const usersUpdate = Command.make(
  "update",
  { app: appId, id: userId, locale, timezone, metadata, json },
  (args) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(args.app)
      const payload = yield* decodeInput(
        UpdateUserPayload,
        given({
          locale: Option.getOrUndefined(args.locale),
          timezone: Option.getOrUndefined(args.timezone),
          metadata: yield* parseMetadata(args.metadata)
        })
      )
      const encoded = yield* Effect.flatMap(Users, (users) => users.update(appId, args.id, payload)).pipe(
        Effect.flatMap(userJson)
      )
      yield* printResult(args.json, encoded, () => userText(encoded))
    }).pipe(withServices(args.json))
).pipe(Command.withDescription("Update a user; --metadata replaces the stored metadata entirely"))

const usersDelete = Command.make(
  "delete",
  { app: appId, id: userId, json },
  ({ app, id, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      yield* Effect.flatMap(Users, (users) => users.softDelete(appId, id))
      yield* printResult(
        json,
        { id, status: "Inactive" },
        () => `User ${id} is now Inactive (data kept, tokens revoked).`
      )
    }).pipe(withServices(json))
).pipe(
  Command.withDescription("Soft-delete a user: it becomes Inactive, its tokens stop working, its data stays")
)

const usersRotateToken = Command.make(
  "rotate-token",
  { app: appId, id: userId, json },
  ({ app, id, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      const token = yield* Effect.flatMap(Users, (users) => users.rotateToken(appId, id))
      yield* printResult(
        json,
        { token },
        () => ["Earlier tokens are revoked. The new token is shown only this once; keep it:", `  ${token}`].join("\n")
      )
    }).pipe(withServices(json))
).pipe(Command.withDescription("Revoke every token of a user and issue a new one"))

const usersErase = Command.make(
  "erase",
  { app: appId, id: userId, json },
  ({ app, id, json }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      // Its external id for the audit, as the portal records it; a user already being erased has none to read.
      const user = yield* Effect.option(Effect.flatMap(Users, (users) => users.get(appId, id)))
      const audit = yield* Audit
      const record = audit.record(byActor(cli, {
        action: "user.erase",
        targetType: "user",
        targetId: Option.match(user, { onNone: () => id, onSome: (found) => found.id }),
        appId,
        detail: { externalUserId: Option.match(user, { onNone: () => null, onSome: (found) => found.externalUserId }) }
      }))
      const { erase } = yield* Effect.promise(() => import("./Outbound.js"))
      const accepted = yield* erase(appId, id, record)
      const requestedAt = accepted.requestedAt.toISOString()
      yield* printResult(
        json,
        { id: accepted.id, status: "Erased", requestedAt },
        () => `User ${accepted.id} is erased: grants revoked, every row and photo deleted; only its tombstone is kept.`
      )
    }).pipe(withServices(json))
).pipe(
  Command.withDescription(
    "Erase a user: revoke every provider grant, delete every row and photo of it, keep only a tombstone of ids"
  )
)

/** Writes a chunk to stdout, waiting for it to drain when its buffer is full (so memory stays flat). */
const writeStdout = (chunk: Uint8Array) =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(chunk)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

const usersExport = Command.make(
  "export",
  {
    app: appId,
    id: userId,
    includeRaw: Options.boolean("include-raw").pipe(
      Options.withDescription("Add each canonical record's stored provider JSON as `raw`")
    )
  },
  ({ app, id, includeRaw }) =>
    Effect.gen(function*() {
      const appId = yield* requireApp(app)
      const stream = yield* Effect.flatMap(UserExport, (exporter) => exporter.stream(appId, id, { includeRaw }))
      yield* Stream.runForEach(stream, writeStdout)
    }).pipe(withServices(false))
).pipe(
  Command.withDescription(
    "Print everything stored of a user as NDJSON on stdout, one {type, data} line per record (`> file.ndjson`)"
  )
)

export const users = Command.make("users").pipe(
  Command.withDescription("Manage the users of an app"),
  Command.withSubcommands([
    usersList,
    usersCreate,
    usersGet,
    usersFind,
    usersUpdate,
    usersDelete,
    usersRotateToken,
    usersErase,
    usersExport
  ])
)
