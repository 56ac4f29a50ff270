/**
 * The services of the data model, without the HTTP server, the connect flow or the sync runtime:
 * what the operator CLI needs, kept apart so its commands load no more than that.
 */
import * as Layer from "effect/Layer"
import { Apps } from "./apps/Apps.js"
import { ProviderCredentials } from "./apps/ProviderCredentials.js"
import { Connections } from "./connections/Connections.js"
import { HealthData } from "./healthData/HealthData.js"
import { SecretBox } from "./platform/SecretBox.js"
import { ScoreData } from "./scoring/ScoreData.js"
import { Users } from "./users/Users.js"

/** The services of the data model; they need a migrated `SqlClient` and the `ServerConfig`. */
export const ServicesLive = Layer.mergeAll(
  Apps.Default,
  Users.Default,
  Connections.Default,
  HealthData.Default,
  ProviderCredentials.Default,
  ScoreData.Default
).pipe(Layer.provideMerge(SecretBox.layer))
