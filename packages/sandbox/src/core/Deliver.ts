/**
 * Outbound deliveries: how a simulator sends a webhook or verification request to a subscriber,
 * through the caller's `HttpClient` so tests choose the transport.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"

export interface Delivery {
  readonly url: string
  readonly status: number
  readonly body: string
}

/** Sends `body` to `url` the way a provider delivers a webhook. */
export const deliver = (
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  method: "POST" | "GET" = "POST"
): Effect.Effect<Delivery, HttpClientError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const base = method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.post(url).pipe(
      HttpClientRequest.bodyText(body, "application/json")
    )
    const response = yield* client.execute(HttpClientRequest.setHeaders(base, headers))
    const text = yield* response.text
    return { url, status: response.status, body: text }
  })
