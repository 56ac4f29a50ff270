/**
 * The whole PulseBridge HTTP contract: every group, the API-wide errors and the typed client.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as OpenApi from "@effect/platform/OpenApi"
import { ConnectionsGroup } from "./Connections.js"
import { CoverageGroup } from "./Coverage.js"
import { InternalServerError, PayloadTooLarge, TooManyRequests, Unauthorized } from "./Errors.js"
import { HealthRecordsGroup } from "./HealthRecords.js"
import { InsightsGroup } from "./Insights.js"
import { JournalGroup } from "./Journal.js"
import { McpAccessGroup } from "./McpAccess.js"
import { OAuthGroup } from "./OAuth.js"
import { ScoresGroup } from "./Scores.js"
import { UsersGroup } from "./Users.js"
import { WebhookEndpointsGroup } from "./WebhookEndpoints.js"

export class Api extends HttpApi.make("pulsebridge")
  .add(UsersGroup)
  .add(ConnectionsGroup)
  .add(HealthRecordsGroup)
  .add(JournalGroup)
  .add(ScoresGroup)
  .add(InsightsGroup)
  .add(CoverageGroup)
  .add(OAuthGroup)
  .add(WebhookEndpointsGroup)
  .add(McpAccessGroup)
  .addError(Unauthorized)
  .addError(PayloadTooLarge)
  .addError(TooManyRequests)
  .addError(InternalServerError)
  .annotate(OpenApi.Title, "PulseBridge API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Wearable health data for your app's users: users, hosted provider connections (Fitbit, Garmin, WHOOP, " +
      "Dexcom), daily activity, daily load, glucose, sleep, workouts, recovery, body measurements, a nutrition journal with the glucose response to each meal, health scores, the coverage of each day's data and signed webhooks telling the app what changed.\n\n" +
      "Errors are JSON `{ \"_tag\", \"message\" }`; a body or parameter that does not match the schema is a 400 " +
      "`HttpApiDecodeError` whose `message` names the first failing field and whose `issues` list every one. " +
      "Request bodies: JSON objects, at most 1 MiB and nested at most 32 levels deep (scan uploads: multipart, " +
      "at most 10 MiB). Every string has a documented maximum length and may not contain NUL, lone surrogates or " +
      "(except free text such as `notes`) control characters. Ids are UUIDs in any case (answered in lower case); a " +
      "path segment over 100 characters or not valid percent-encoded UTF-8 is a 400. Timestamps are ISO 8601 with " +
      "a zone, each field within its range; dates are calendar days. Date ranges: `from`/`to` inclusive, at most " +
      "366 days (92 for coverage)." +
      "\n\nRate limits: a token bucket per API key (20 requests/s, burst 100), per user token (10/s, burst 50) " +
      "and per client address for requests without a credential (5/s, burst 30; failed authentications draw from " +
      "it too), configurable by the operator; over the limit: 429 `TooManyRequests` with `retryAfterSeconds` and " +
      "`Retry-After`. Every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` " +
      "(seconds until the bucket is full)."
  )
{}

/** The derived, fully typed client of the API. */
export const makeClient = (options?: Parameters<typeof HttpApiClient.make>[1]) => HttpApiClient.make(Api, options)
