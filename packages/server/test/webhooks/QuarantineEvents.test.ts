/**
 * A backfill that quarantines a record says so when it completes: `sync.backfill.completed`
 * counts the record set aside beside the records stored, through HTTP with the test plug-in (Acme),
 * whose simulator sends one malformed day.
 */
import { expect, layer } from "@effect/vitest"
import { builtinPlugins, makeRegistry, ProviderRegistry } from "@pulsebridge/providers"
import { simulatorRegistry } from "@pulsebridge/sandbox"
import { createUser, makeTestServer } from "@pulsebridge/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { connect, simulatedUser } from "../fixtures/Connect.js"
import { addEndpoint, ofType, sentTo } from "../fixtures/Events.js"
import { json, preview, send } from "../fixtures/Http.js"
import { waitForSync } from "../fixtures/Sync.js"
import { AcmePlugin } from "../plugins/acme/Plugin.js"
import { acmeQuirks, makeAcmeSimulator } from "../plugins/acme/Simulator.js"

const registries = {
  providers: Layer.succeed(ProviderRegistry, ProviderRegistry.make(makeRegistry([...builtinPlugins, AcmePlugin]))),
  simulators: [...simulatorRegistry, { provider: "Acme", slug: "acme", make: makeAcmeSimulator }]
}

layer(makeTestServer({ sandbox: true }, registries), { timeout: "180 seconds", excludeTestServices: true })(
  "backfill events with quarantined records",
  (it) => {
    it.effect("sync.backfill.completed counts the quarantined record and the days stored", () =>
      Effect.gen(function*() {
        acmeQuirks.oddDaysMended = false
        const { app, token, user } = yield* createUser("events-acme-odd")
        const endpoint = yield* addEndpoint(app.id)
        const { connectionId } = yield* connect(user.id, token, "Acme", simulatedUser("odd"))
        const synced = yield* waitForSync(user.id, token, connectionId)
        expect(synced.quarantinedRecords).toBe(1)

        const [completed] = ofType(yield* sentTo(endpoint), "sync.backfill.completed")
        const { from, to } = completed!.data
        const reply = yield* send(
          "GET",
          `/api/v1/users/${user.id}/connections/activity?from=${from}&to=${to}&provider=Acme`,
          { bearer: token }
        )
        expect(reply.status, preview(reply)).toBe(200)
        const days = json(reply) as Array<unknown>
        expect(days.length).toBeGreaterThan(0)
        expect(completed!.data).toEqual({
          userId: user.id,
          connectionId,
          provider: "Acme",
          from,
          to,
          counts: { dailyActivity: days.length },
          quarantined: 1
        })
      }))
  }
)
