/**
 * The services of the data model, without the listener, the connect flow or the sync runtime: what the operator
 * CLI needs, in a module of its own so that a CLI command loads these services and not the whole application
 * (`App.ts`: the HTTP handlers, the API documentation page, the portal, the sandbox, the cluster).
 */
import * as Layer from "effect/Layer"
import { Authentication } from "./access/Authentication.js"
import { Apps } from "./apps/Apps.js"
import { ProviderCredentials } from "./apps/ProviderCredentials.js"
import { Connections } from "./connections/Connections.js"
import { ConnectionsRepo } from "./connections/ConnectionsRepo.js"
import { DataCoverage } from "./coverage/DataCoverage.js"
import { Endpoints } from "./events/Endpoints.js"
import { Outbox } from "./events/Outbox.js"
import { HealthData } from "./healthData/HealthData.js"
import { MealComparisons } from "./insights/MealComparisons.js"
import { MealResponses } from "./insights/MealResponses.js"
import { SecretBox } from "./platform/SecretBox.js"
import { Audit } from "./portal/operators/Audit.js"
import { Operators } from "./portal/operators/Operators.js"
import { Sessions } from "./portal/operators/Sessions.js"
import { ScoreData } from "./scoring/ScoreData.js"
import { Quarantine } from "./sync/Quarantine.js"
import { UserExport } from "./users/Export.js"
import { Users } from "./users/Users.js"

export const DataLive = Endpoints.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(
    Apps.Default,
    Authentication.Default,
    ConnectionsRepo.Default,
    Users.Default,
    Connections.Default,
    HealthData.Default,
    MealResponses.Default,
    MealComparisons.Default,
    DataCoverage.Default,
    ProviderCredentials.Default,
    ScoreData.Default,
    Quarantine.Default,
    Outbox.Default,
    UserExport.Default,
    Operators.Default,
    Sessions.Default,
    Audit.Default
  )),
  Layer.provideMerge(SecretBox.Default)
)
