/**
 * The Dexcom simulator's v3 data endpoints: bearer auth and the hourly per-client limit, the
 * `egvs`/`events`/`calibrations` envelopes with the 30-day window rule, `devices` and
 * `dataRange`.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type { AccessRecord } from "../core/OAuth2.js"
import { authenticate } from "../core/OAuth2.js"
import { localDayOf } from "../core/Random.js"
import type { SimRequestShape } from "../core/Request.js"
import { json } from "../core/Responses.js"
import type { DexcomRecordKind } from "./Data.js"
import { clip, egvsInSlices, parseDexcomDate, plainTime, recordsIn } from "./Data.js"
import { Glucose } from "./Glucose.js"
import type { DexcomCore } from "./Shapes.js"
import { DATA_DELAY_MS, dexcomError, HOUR_MS, MAX_WINDOW_MS, RATE_LIMIT, SLOT_MS, style } from "./Shapes.js"

export const makeDexcomApi = (core: DexcomCore) => {
  const api = (
    req: SimRequestShape,
    f: (
      record: AccessRecord,
      glucose: Glucose,
      latestMs: number
    ) => HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>
  ) => {
    const now = core.nowMs()
    const bearer = /^bearer\s+(\S+)$/i.exec((req.headers["authorization"] ?? "").trim())?.[1]
    const auth = authenticate(core.state, bearer, now)
    switch (auth._tag) {
      case "Missing":
        return dexcomError(401, "invalid_token", "Missing bearer access token")
      case "Invalid":
        return dexcomError(401, "invalid_token", "Invalid access token")
      case "Expired":
        return style.expiredToken(req)
    }
    const record = auth.record
    req.identify({ clientId: record.clientId, userId: record.userId })
    const hit = core.rates.hit(record.clientId, HOUR_MS, RATE_LIMIT, now)
    if (hit.limited) return style.rateLimited(hit.resetSeconds)
    return f(record, new Glucose(core.seed, record.userId), now - DATA_DELAY_MS)
  }

  const envelope = (recordType: string, userId: string, records: ReadonlyArray<unknown>) =>
    json({ recordType, recordVersion: "3.0", userId, records })

  /** Validated [start, end) clipped to what exists; an error response otherwise. */
  const window = (req: SimRequestShape, glucose: Glucose, latestMs: number) => {
    const rawStart = req.query.get("startDate")
    const rawEnd = req.query.get("endDate")
    if (rawStart === null || rawEnd === null) {
      return dexcomError(400, "invalid_request", "startDate and endDate are required")
    }
    const start = parseDexcomDate(rawStart)
    const end = parseDexcomDate(rawEnd)
    if (start === undefined || end === undefined) {
      return dexcomError(
        400,
        "invalid_request",
        "startDate and endDate must be ISO 8601 date-times without a UTC offset, e.g. 2024-01-31T08:00:00"
      )
    }
    if (end <= start) return dexcomError(400, "invalid_request", "endDate must be after startDate")
    if (end - start > MAX_WINDOW_MS) {
      return dexcomError(
        400,
        "invalid_request",
        "The time window between startDate and endDate must not exceed 30 days"
      )
    }
    return clip(glucose, start, end, latestMs)
  }

  const list = (kind: DexcomRecordKind) => (req: SimRequestShape) =>
    api(req, (record, glucose, latestMs) => {
      const w = window(req, glucose, latestMs)
      if (!("from" in w)) return w
      // A month of readings is some 8,600 records: built a slice at a time, letting the event loop go between
      // slices, since sandbox mode serves this simulator from the server's own process.
      return kind === "egv"
        ? Effect.map(egvsInSlices(glucose, w.from, w.to), (records) => envelope(kind, record.userId, records))
        : envelope(kind, record.userId, recordsIn(glucose, kind, w.from, w.to))
    })

  const devices = (req: SimRequestShape) =>
    api(req, (record, glucose, latestMs) => {
      const t = glucose.t
      const last = Math.max(t.start, glucose.firstSlotAtOrAfter(latestMs - SLOT_MS + 1))
      const at = glucose.times(last)
      const alert = (alertName: string, value: number | null, unit: string | null, snooze: number | null) => ({
        alertName,
        value,
        unit,
        snooze,
        enabled: true,
        systemTime: at.systemTime,
        displayTime: at.displayTime
      })
      return envelope("device", record.userId, [{
        lastUploadDate: at.systemTime,
        transmitterId: glucose.transmitter(last).transmitterId,
        ...glucose.device(),
        alertSchedules: [{
          alertScheduleSettings: {
            alertScheduleName: "",
            isEnabled: true,
            isDefaultSchedule: true,
            startTime: "00:00",
            endTime: "00:00",
            daysOfWeek: ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
          },
          alertSettings: [
            alert("urgentLow", 55, "mg/dL", 30),
            alert("low", 70, "mg/dL", 15),
            alert("high", 250, "mg/dL", 120),
            alert("rise", 3, "mg/dL/min", null),
            alert("fall", 3, "mg/dL/min", null),
            alert("noReadings", 20, "minutes", null)
          ]
        }]
      }])
    })

  const dataRange = (req: SimRequestShape) =>
    api(req, (record, glucose, latestMs) => {
      const t = glucose.t
      const rawSync = req.query.get("lastSyncTime")
      let after = t.start - 1
      if (rawSync !== null) {
        const sync = parseDexcomDate(rawSync)
        if (sync === undefined) {
          return dexcomError(400, "invalid_request", "lastSyncTime must be an ISO 8601 date-time without a UTC offset")
        }
        after = Math.max(after, sync)
      }
      const point = (ms: number) => {
        const times = glucose.times(ms)
        return { systemTime: plainTime(ms), displayTime: times.displayTime.slice(0, 19) }
      }
      const range = (first: number | undefined, last: number | undefined) =>
        first === undefined || last === undefined || first > last
          ? undefined
          : { start: point(first), end: point(last) }
      // EGVs: the first slot after `after`, the last one available
      const firstEgv = glucose.firstSlotAtOrAfter(after + 1)
      const lastEgv = glucose.firstSlotAtOrAfter(latestMs - SLOT_MS + 1)
      const sparseRange = (of: (day: number) => ReadonlyArray<{ readonly ms: number }>) => {
        const offset = t.zone.offsetMinutes
        const lastDay = localDayOf(latestMs, offset)
        let first: number | undefined
        for (let day = localDayOf(Math.max(after, t.start), offset); day <= lastDay && first === undefined; day++) {
          first = of(day).find((e) => e.ms > after && e.ms <= latestMs)?.ms
        }
        let last: number | undefined
        for (let day = lastDay; day >= t.memberSinceDay && last === undefined && first !== undefined; day--) {
          last = [...of(day)].reverse().find((e) => e.ms > after && e.ms <= latestMs)?.ms
        }
        return range(first, last)
      }
      const calibrations = sparseRange((day) => glucose.calibrations(day))
      const egvRange = range(firstEgv, lastEgv)
      const events = sparseRange((day) => glucose.events(day))
      return json({
        recordType: "dataRange",
        recordVersion: "3.0",
        userId: record.userId,
        ...(calibrations === undefined ? {} : { calibrations }),
        ...(egvRange === undefined ? {} : { egvs: egvRange }),
        ...(events === undefined ? {} : { events })
      })
    })

  return { list, devices, dataRange }
}
