/**
 * What can go wrong in the connect flow and in reaching a provider, named for what happened.
 * The handlers turn them into the contract's errors (`connections/Http.ts`).
 */
import * as Data from "effect/Data"

/** No registered provider carries this name. */
export class UnknownProvider extends Data.TaggedError("UnknownProvider")<{ readonly provider: string }> {
  override get message() {
    return `PulseBridge has no provider named ${this.provider}`
  }
}

/** The app has no credentials at the provider, and sandbox mode is off. */
export class ProviderNotConfigured extends Data.TaggedError("ProviderNotConfigured")<{ readonly provider: string }> {
  override get message() {
    return `The app has no ${this.provider} credentials configured; an operator sets them with ` +
      `\`pulsebridge provider-credentials set --app <appId> --provider ${this.provider} ...\``
  }
}

/** A session's `redirectUrl` breaks a rule (scheme, credentials, fragment, the app's prefixes). */
export class RedirectUrlRefused extends Data.TaggedError("RedirectUrlRefused")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/** The provider could not start an authorization (its request-token leg failed). */
export class AuthorizationUnavailable extends Data.TaggedError("AuthorizationUnavailable")<{
  readonly provider: string
  readonly reason: string
}> {
  override get message() {
    return `${this.provider} could not start the authorization: ${this.reason}`
  }
}

/** The user has no connection with this id (another user's looks absent). */
export class ConnectionNotFound extends Data.TaggedError("ConnectionNotFound")<{ readonly connectionId: string }> {
  override get message() {
    return `no connection with id ${this.connectionId}`
  }
}
