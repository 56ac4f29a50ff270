/**
 * The public keys providers sign their notifications with (Google Health: a Tink keyset it publishes and rotates
 * about every 30 days), read from the address the provider's plug-in names (or the operator's
 * `PROVIDER_SIGNING_KEYS_URLS`) and kept in memory. A keyset is read again after `freshFor`, and sooner when a
 * delivery's signature matches none of its keys (the provider may have rotated), at most once per `retryAfter`
 * (so forged signatures cannot make the server read the keys over and over). A read that fails is not tried
 * again for `retryAfter`; meanwhile the keys read before are used (up to `usableFor`). When no keys can be had,
 * a delivery cannot be checked: it is answered 503, so the provider sends it again later, and nothing is accepted
 * unchecked.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ServerConfig } from "../platform/ServerConfig.js"

/** Keys read this long ago are read again before use. */
const freshFor = Duration.toMillis("6 hours")
/** A signature that matches no key reads the keys again, at most this often. */
const retryAfter = Duration.toMillis("5 minutes")
/** Keys older than this are not used when they cannot be read again. */
const usableFor = Duration.toMillis("7 days")
/** The most bytes of a keyset read. */
const maxBytes = 256 * 1024

export class SigningKeysUnavailable extends Data.TaggedError("SigningKeysUnavailable")<{ readonly url: string }> {
  override get message() {
    return `the provider's signing keys could not be read from ${this.url}`
  }
}

interface Held {
  readonly text: string
  readonly readAt: number
}

export class SigningKeys extends Effect.Service<SigningKeys>()("@pulsebridge/server/SigningKeys", {
  effect: Effect.gen(function*() {
    const config = yield* ServerConfig
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
    const held = new Map<string, Held>()
    const failedAt = new Map<string, number>()
    const refreshedAt = new Map<string, number>()
    // One read at a time: deliveries arriving together wait for it rather than each reading the keys.
    const lock = yield* Effect.makeSemaphore(1)

    const read = (url: string) =>
      client.execute(HttpClientRequest.get(url, { acceptJson: true })).pipe(
        Effect.flatMap((response) => response.text),
        Effect.scoped,
        Effect.timeout("10 seconds"),
        Effect.flatMap((text) =>
          text.length > 0 && text.length <= maxBytes && text.trimStart().startsWith("{")
            ? Effect.succeed(text)
            : Effect.fail("not a keyset")
        ),
        Effect.tapError((error) =>
          Effect.logWarning("Provider signing keys could not be read").pipe(
            Effect.annotateLogs({ url, error: String(error) })
          )
        ),
        Effect.option
      )

    const recently = (times: Map<string, number>, url: string, now: number) =>
      now - (times.get(url) ?? -Infinity) < retryAfter

    /** The keys at `url`, read again when old (or, with `refresh`, unless refreshed lately); undefined: none. */
    const keysAt = (url: string, now: number, refresh: boolean) =>
      Effect.gen(function*() {
        const current = held.get(url)
        const old = current === undefined || now - current.readAt > freshFor
        const refreshing = refresh && !recently(refreshedAt, url, now)
        if ((old || refreshing) && !recently(failedAt, url, now)) {
          if (refreshing) refreshedAt.set(url, now)
          const text = yield* read(url)
          if (Option.isSome(text)) {
            held.set(url, { text: text.value, readAt: now })
            failedAt.delete(url)
            return text.value
          }
          failedAt.set(url, now)
        }
        return current !== undefined && now - current.readAt <= usableFor ? current.text : undefined
      })

    return {
      /**
       * The address of a provider's signing keys: the operator's (`off`: none) or the plug-in's; none for a
       * provider that does not sign.
       */
      urlOf: (slug: string, pluginUrl: string | undefined): Option.Option<string> => {
        const url = config.signingKeysUrls.get(slug) ?? pluginUrl
        return url === undefined || url === "off" ? Option.none() : Option.some(url)
      },
      /** The keyset text at `url`; with `refresh`, read again unless that was tried a moment ago. */
      get: (url: string, options: { readonly now: number; readonly refresh?: boolean }) =>
        Effect.flatMap(
          lock.withPermits(1)(keysAt(url, options.now, options.refresh === true)),
          (text) => text === undefined ? Effect.fail(new SigningKeysUnavailable({ url })) : Effect.succeed(text)
        )
    } as const
  })
}) {}
