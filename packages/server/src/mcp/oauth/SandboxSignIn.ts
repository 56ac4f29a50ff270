/**
 * The sandbox's demo of an app's assistant sign-in (sandbox mode only): a page that lets the tester pick one of
 * the app's sandbox test users and then does what an app's backend does, making the sign-in assertion through
 * the same service the API's `POST /api/v1/mcp/sign-in-assertions` calls. New sandbox apps point their
 * assistant sign-in URL here, so the whole OAuth flow runs offline.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AssertionRefused, McpAuthorization } from "./Authorization.js"
import { OAuthRepo } from "./OAuthRepo.js"

export const SandboxSignInPath = "/sandbox/mcp-sign-in"

export class SandboxSignIn extends Effect.Service<SandboxSignIn>()("@pulsebridge/server/SandboxSignIn", {
  effect: Effect.gen(function*() {
    const authorization = yield* McpAuthorization
    const repo = yield* OAuthRepo

    const appOf = (signed: string) =>
      Effect.flatMap(authorization.appOfRequest(signed), (appId) =>
        Option.isSome(appId)
          ? Effect.succeed(appId.value)
          : Effect.fail(
            new AssertionRefused({
              reason: "InvalidRequest",
              message: "This sign-in request is not valid or has expired. Start again from the assistant."
            })
          ))

    return {
      /** The app's name and its sandbox test users, for the request `signed`. */
      page: (signed: string) =>
        Effect.gen(function*() {
          const appId = yield* appOf(signed)
          const app = yield* authorization.app(appId)
          const users = yield* repo.sandboxUsers(appId)
          return { appName: Option.match(app, { onNone: () => "the app", onSome: (a) => a.name }), users }
        }),

      /** Signs the test user `userId` in: the assertion, as the app's backend would make it. */
      signIn: (signed: string, userId: string) =>
        Effect.gen(function*() {
          const appId = yield* appOf(signed)
          const users = yield* repo.sandboxUsers(appId)
          if (!users.some((user) => user.id === userId)) {
            return yield* new AssertionRefused({ reason: "UnknownUser", message: "Pick one of the app's test users." })
          }
          return yield* authorization.createAssertion(appId, signed, userId)
        })
    } as const
  }),
  dependencies: [McpAuthorization.Default, OAuthRepo.Default]
}) {}
