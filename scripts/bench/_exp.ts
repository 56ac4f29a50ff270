import { startEmbedded } from "@pulsebridge/server/Database"
import * as Effect from "effect/Effect"
import pg from "pg"

const mode = process.argv[2] ?? "mixed"
await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const ep = yield* startEmbedded(undefined)
  yield* Effect.promise(async () => {
    const pool = new pg.Pool({ host: ep.host, port: ep.port, user: "postgres", database: "postgres", max: 8 })
    pool.on("error", () => {})
    await pool.query("create table t (id int primary key, v text)")
    let foreign = 0, errors = 0, wrong = 0, ok = 0
    const messages = new Map<string, number>()
    const end = Date.now() + 3000
    let n = 0
    const worker = async (w: number) => {
      while (Date.now() < end) {
        const k = ++n
        try {
          if (mode === "tx" || (mode === "mixed" && w % 2 === 0)) {
            const c = await pool.connect()
            try {
              await c.query("begin")
              const r = await c.query("select $1::int as x, 'tx' as kind", [k])
              if (r.rows[0]?.x !== k) {
                wrong++
                if (wrong < 4) console.log("tx expected", k, "got", JSON.stringify(r.rows))
              }
              await c.query("insert into t (id, v) values ($1, $2)", [k, "v"])
              await c.query("commit")
            } finally {
              c.release()
            }
          } else if (mode === "reads2" && w % 2 === 0) {
            const r = await pool.query("select $1::int as x, 's' as y, 1 as z", [k])
            if (r.rows[0]?.x !== k || r.rows[0]?.z !== 1) {
              wrong++
              console.log("A expected", k, JSON.stringify(r.rows))
            }
          } else {
            const r = await pool.query("select $1::int as x, $2::text as y", [k, "s"])
            if (r.rows[0]?.x !== k || r.rows[0]?.y !== "s") {
              wrong++
              if (r.rows.length > 0) {
                foreign++
                if (foreign < 4) console.log("select expected", k, "got", JSON.stringify(r.rows))
              }
            }
          }
          ok++
        } catch (e) {
          errors++
          const m = (e as Error).message
          messages.set(m, (messages.get(m) ?? 0) + 1)
        }
      }
    }
    const timer = setInterval(
      () => console.log(JSON.stringify({ foreign, ok, errors, wrong, messages: [...messages] })),
      1000
    )
    await Promise.all(Array.from({ length: 10 }, (_, i) => worker(i)))
    clearInterval(timer)
    console.log({ mode, ok, errors, wrong, messages })
    await pool.end()
  })
})))
