import { addEqualityTesters, makeMethods } from "@effect/vitest"
import { it } from "vitest"

addEqualityTesters()

// `layer(...)` of @effect/vitest assigns its own `effect`, `scoped`, `layer`... onto Vitest's shared `it`
// (the object @effect/vitest exports as `it`), where they stay: a later file's plain `it.effect` or
// `it.layer` would run in that layer's runtime, over another file's server and database. Test files share
// their dependencies' modules within a worker (`isolate: false`), so each file starts from the defaults.
makeMethods(it)
