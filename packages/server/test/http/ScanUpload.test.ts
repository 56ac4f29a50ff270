/**
 * The scan upload's route as the contract declares it, without a server: the reader and the body
 * rules recognise the scan by the `journal.scan` endpoint's path, and no other route.
 */
import { describe, expect, it } from "@effect/vitest"
import { JournalGroup } from "@pulsebridge/domain"
import { isScanRoute, routeMatcher } from "../../src/http/ScanUpload.js"

describe("the scan upload's route", () => {
  const user = "0b7f6c1e-6a34-4f0e-9a57-0a7e4c1d2b3f"

  it("is the contract's scan endpoint, with any user id, a trailing slash or a query string", () => {
    expect(JournalGroup.endpoints.scan.path).toBe("/api/v1/users/:userId/journal-entries/scans")
    expect(isScanRoute(`/api/v1/users/${user}/journal-entries/scans`)).toBe(true)
    expect(isScanRoute(`/api/v1/users/${user}/journal-entries/scans/`)).toBe(true)
    expect(isScanRoute(`/api/v1/users/${user}/journal-entries/scans?x=1`)).toBe(true)
    expect(isScanRoute(`/api/v1/users/not-a-uuid/journal-entries/scans`)).toBe(true)
  })

  it("is no other journal route, nor one with an empty or extra segment", () => {
    for (
      const url of [
        `/api/v1/users/${user}/journal-entries`,
        `/api/v1/users/${user}/journal-entries/${user}`,
        `/api/v1/users/${user}/journal-entries/scans/${user}`,
        `/api/v1/users/${user}/journal-entries/scansx`,
        `/api/v1/users//journal-entries/scans`,
        `/api/v1/users/a/b/journal-entries/scans`,
        `/portal/api/v1/users/${user}/journal-entries/scans`
      ]
    ) expect(isScanRoute(url), url).toBe(false)
  })

  it("reads the literal segments of a path literally", () => {
    const matches = routeMatcher("/api/v1/files/:id/a.b+c")
    expect(matches("/api/v1/files/7/a.b+c")).toBe(true)
    expect(matches("/api/v1/files/7/aXbbc")).toBe(false)
  })
})
