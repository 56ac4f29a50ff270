/**
 * The parts of commands that call providers: the erasure (which revokes each grant) and the token exchange. Loaded
 * by those commands only (`import()`), so that every other command starts without the HTTP client and the
 * server's cluster definitions.
 */
import type { AppId } from "@pulsebridge/domain"
import {
  BlobStore,
  ConnectionTokens,
  loadOrCreateCertificate,
  ProviderAccess,
  ServerBases,
  ServerConfig
} from "@pulsebridge/server"
import {
  describeExchange,
  Erasure,
  ErasureInProcessLive,
  ErasureWork,
  ProviderHttpClientLive,
  ServerCertificate,
  TokenExchange
} from "@pulsebridge/server/Outbound"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** This server's certificate, so calls to its own sandbox simulators are trusted as the server trusts them. */
const CertificateFromConfig = Layer.effect(
  ServerCertificate,
  Effect.gen(function*() {
    const config = yield* ServerConfig
    if (config.trustProxy) return { cert: null }
    const certificate = yield* loadOrCreateCertificate({
      dataDir: config.dataDir,
      certFile: Option.getOrUndefined(config.tlsCertFile),
      keyFile: Option.getOrUndefined(config.tlsKeyFile)
    })
    return { cert: certificate.cert }
  })
)

/** Provider access over the server's HTTP client, trusting its own certificate. */
const ProvidersLive = ConnectionTokens.Default.pipe(
  Layer.provideMerge(ProviderAccess.Default),
  Layer.provideMerge(ServerBases.FromConfig),
  Layer.provideMerge(ProviderHttpClientLive),
  Layer.provide(CertificateFromConfig)
)

/**
 * The erasure as the server's, but run to its end in the command; its work needs, beyond the data services,
 * provider access for the revocations and the blob store.
 */
const ErasureLive = Erasure.Default.pipe(
  Layer.provide(ErasureInProcessLive),
  Layer.provide(ErasureWork.Default),
  Layer.provide(BlobStore.Default),
  Layer.provide(ProvidersLive)
)

/** Erases a user of an app to its end, as `Erasure.erase`, with `alongside` in the transaction that hides it. */
export const erase = <E, R>(appId: AppId, userId: string, alongside: Effect.Effect<void, E, R>) =>
  Effect.flatMap(Erasure, (erasure) => erasure.erase(appId, userId, alongside)).pipe(Effect.provide(ErasureLive))

/** Exchanges the OAuth 1.0a tokens of the connections (of one app, or all) now; the results and their text. */
export const exchangeTokens = (appId: AppId | undefined) =>
  Effect.flatMap(TokenExchange, (exchange) => exchange.run({ appId })).pipe(
    Effect.map((results) => ({ results, text: describeExchange(results) })),
    Effect.provide(TokenExchange.Default.pipe(Layer.provideMerge(ProvidersLive)))
  )
