/**
 * Providers are plug-ins: a fifth provider the server has never heard of (Acme: an adapter, a data
 * reader and a catalogue entry in its plug-in, and a simulator built on the sandbox core) is
 * registered beside the four built-in ones, and a user connects it through the hosted flow, its
 * history is backfilled, and the app reads it through the same endpoints, without any change to
 * the server.
 */
import { expect, layer } from "@effect/vitest"
import { builtinPlugins, makeRegistry, ProviderRegistry } from "@pulsebridge/providers"
import { simulatorRegistry } from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { connect, listConnections, simulatedUser } from "../fixtures/Connect.js"
import { expectError, json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"
import { AcmePlugin } from "./acme/Plugin.js"
import { acmeDay, acmeUserId, makeAcmeSimulator } from "./acme/Simulator.js"

const registries = {
  providers: Layer.succeed(ProviderRegistry, ProviderRegistry.make(makeRegistry([...builtinPlugins, AcmePlugin]))),
  simulators: [...simulatorRegistry, { provider: "Acme", slug: "acme", make: makeAcmeSimulator }]
}

const utcDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10)

layer(makeTestServer({ sandbox: true }, registries), { timeout: "180 seconds", excludeTestServices: true })(
  "a fifth provider",
  (it) => {
    it.effect("is listed, connects through the hosted flow, backfills, and is read through endpoints 10 and 11", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("acme-user")

        const listing = yield* send("GET", `/api/v1/users/${user.id}/connections/providers`, { bearer: token })
        expect(listing.status, preview(listing)).toBe(200)
        const names = (json(listing) as Array<any>).map((entry) => entry.provider.name)
        expect(names).toEqual(["Fitbit", "Garmin", "WHOOP", "Dexcom", "Oura", "Withings", "Acme"])
        const acme = (json(listing) as Array<any>).find((entry) => entry.provider.name === "Acme")
        expect(acme.provider).toEqual({
          name: "Acme",
          slug: "acme",
          authType: "OAuth2",
          logoUrl: null,
          supportedDataTypes: ["DailyActivity"]
        })
        expect(acme.connection).toBeNull()

        const account = simulatedUser("acme")
        const { connectionId } = yield* connect(user.id, token, "Acme", account)
        yield* waitForSync(user.id, token, connectionId)
        const [connection] = yield* listConnections(user.id, token)
        expect(connection).toMatchObject({
          id: connectionId,
          provider: "Acme",
          providerUserId: acmeUserId(account),
          status: "Active",
          syncState: "Idle"
        })

        // The whole backfill (30 days, in 7-day windows) is stored, each day as the simulator serves it.
        const from = utcDay(-29)
        const to = utcDay(0)
        const range = yield* send(
          "GET",
          `/api/v1/users/${user.id}/connections/activity?from=${from}&to=${to}&provider=Acme`,
          { bearer: token }
        )
        expect(range.status, preview(range)).toBe(200)
        const days = json(range) as Array<any>
        expect(days.map((day) => day.date)).toEqual(Array.from({ length: 30 }, (_, i) => utcDay(i - 29)))
        for (const day of days) {
          const served = acmeDay("pulsebridge-sandbox", acmeUserId(account), day.date)
          expect(day).toMatchObject({
            connectionId,
            provider: "Acme",
            steps: served.steps,
            caloriesOut: served.total_calories,
            distanceMeters: served.meters,
            moderateActiveMinutes: served.moderate_minutes,
            vigorousActiveMinutes: served.vigorous_minutes
          })
        }

        const single = yield* send("GET", `/api/v1/users/${user.id}/connections/${connectionId}/activity/${to}`, {
          bearer: token
        })
        expect(single.status, preview(single)).toBe(200)
        const served = acmeDay("pulsebridge-sandbox", acmeUserId(account), to)
        expect(json(single)).toEqual({
          steps: served.steps,
          caloriesOut: served.total_calories,
          distance: served.meters / 1000,
          fairlyActiveMinutes: served.moderate_minutes,
          veryActiveMinutes: served.vigorous_minutes,
          rawJson: JSON.stringify(served)
        })

        // A provider no plug-in carries is still refused.
        const unknown = yield* send(
          "GET",
          `/api/v1/users/${user.id}/connections/activity?from=${from}&to=${to}&provider=Polar`,
          { bearer: token }
        )
        expectError(unknown, 400)
      }))

    it.effect("disconnecting revokes the grant at the provider through its plug-in", () =>
      Effect.gen(function*() {
        const { token, user } = yield* createUser("acme-leaver")
        const { connectionId } = yield* connect(user.id, token, "Acme", simulatedUser("acme-leaver"))
        yield* waitForSync(user.id, token, connectionId)
        const deleted = yield* send("DELETE", `/api/v1/users/${user.id}/connections/${connectionId}`, { bearer: token })
        expect(deleted.status, preview(deleted)).toBe(204)
        const calls = yield* send("GET", "/sandbox/acme/_sim/calls?path=/oauth/revoke")
        expect(calls.status, preview(calls)).toBe(200)
        expect((json(calls) as any).calls.map((call: any) => call.status)).toEqual([200])
        expect(yield* listConnections(user.id, token)).toEqual([])
      }))
  }
)
