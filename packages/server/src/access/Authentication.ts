/**
 * Who a presented secret belongs to: the app and permissions of a live API key, or the Active user of a
 * live user token, each by the one lookup statement of its kind (`ApiKeysRepo.findLive`,
 * `UserTokensRepo.findActiveUser`), unless the rate limiter's statement already looked it up for the
 * request. A key's use is noted at most once a minute per process.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { traced } from "../platform/Traced.js"
import { ApiKeysRepo, AuthenticatedApp } from "./ApiKeysRepo.js"
import { hashSecret } from "./CredentialHash.js"
import { AuthenticatedUser, UserTokensRepo } from "./UserTokensRepo.js"

const decodeAuthenticatedApp = Schema.decodeUnknownOption(AuthenticatedApp)
const decodeAuthenticatedUser = Schema.decodeUnknownOption(AuthenticatedUser)

/** A row found beforehand: none when it was not looked up, some(none) when the lookup found nothing. */
const known = <A>(prefetched: Option.Option<unknown> | undefined, decode: (row: unknown) => Option.Option<A>) =>
  prefetched === undefined || Option.isNone(prefetched)
    ? Option.none<Option.Option<A>>()
    : prefetched.value === null
    ? Option.some(Option.none<A>())
    : Option.map(decode(prefetched.value), Option.some)

export class Authentication extends Effect.Service<Authentication>()("@pulsebridge/server/Authentication", {
  effect: Effect.gen(function*() {
    const keys = yield* ApiKeysRepo
    const tokens = yield* UserTokensRepo

    /** When this process last wrote each key's `last_used_at`. */
    const lastTouched = new Map<string, number>()
    const touchEveryMs = 60_000

    return {
      /**
       * The app of a live API key, noting its use. `hash` is the secret's hash when the caller has it already;
       * `prefetched` is what the rate limiter's statement found for it.
       */
      apiKey: traced("Authentication.apiKey")(
        function*(secret: string, options?: { readonly hash?: string; readonly prefetched?: Option.Option<unknown> }) {
          const before = known(options?.prefetched, decodeAuthenticatedApp)
          const found = Option.isSome(before)
            ? before.value
            : yield* keys.findLive(options?.hash ?? hashSecret(secret))
          if (Option.isSome(found)) {
            const now = yield* Clock.currentTimeMillis
            const last = lastTouched.get(found.value.apiKeyId)
            if (last === undefined || now - last >= touchEveryMs || now < last) {
              lastTouched.set(found.value.apiKeyId, now)
              if (lastTouched.size > 10_000) lastTouched.clear()
              yield* keys.touch(found.value.apiKeyId)
            }
          }
          return found
        }
      ),

      /** The Active user of a live user token. */
      userToken: traced("Authentication.userToken")(
        function*(secret: string, options?: { readonly hash?: string; readonly prefetched?: Option.Option<unknown> }) {
          const before = known(options?.prefetched, decodeAuthenticatedUser)
          return Option.isSome(before)
            ? before.value
            : yield* tokens.findActiveUser(options?.hash ?? hashSecret(secret))
        }
      )
    } as const
  }),
  dependencies: [ApiKeysRepo.Default, UserTokensRepo.Default]
}) {}
