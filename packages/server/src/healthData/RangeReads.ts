/**
 * The fast path of the range reads (endpoints 10, 12 and 14): their SQL names the columns as the contract does
 * and formats the timestamps as the contract writes them (ISO 8601 UTC with milliseconds, as `Date#toJSON`),
 * so the rows go out with `JSON.stringify` and no schema encoding, in exactly the shape of the contract's
 * `DailyActivitySummary`, `DailyLoadSummary` and `GlucoseData` (the schema-decoded reads of `HealthDataRepo`
 * stay the reference; a test holds the two to the same bytes).
 *
 * Each read is a list of sections (one array, or glucose's readings, events and calibrations), each read in key
 * order (date, provider, connection, then the record's time and id) with keyset pages: a page is the rows after
 * a key. The same pages serve the `limit`/`cursor` paging of the API and the streaming of large answers.
 * A version of each read, from the count and the row versions (`xmin`) of the rows it covers, makes its ETag
 * without reading the rows themselves.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { UserId } from "@pulsebridge/domain"
import * as Effect from "effect/Effect"
import { visibleConnection } from "../connections/ConnectionsRepo.js"
import type { RangeQuery } from "./HealthDataRepo.js"

/** Where a section's page starts: the key of the row before it (its values as text), or the section's start. */
export type PageKey = ReadonlyArray<string>

/** A row of the contract's shape, with the hidden key columns (`_t`, `_r`) of its section until they are dropped. */
export type Row = Record<string, unknown>

export interface Section {
  /** The JSON key of the section in an object answer (glucose); none for an array answer. */
  readonly name: string | undefined
  /** How many values a key of this section has. */
  readonly keyLength: number
  /** What each key value must look like, for checking a cursor before its values reach SQL. */
  readonly keyKinds: ReadonlyArray<"date" | "text" | "uuid" | "time">
  /**
   * Up to `limit` rows (all without a limit) after `after`, in key order; with `keyed`, with the hidden columns
   * `keyOf` needs (a read that will not continue from a key goes without them); with `versioned`, with each
   * row's version (`_v`, see `versionOfRows`).
   */
  readonly page: (
    userId: UserId,
    query: RangeQuery,
    after: PageKey | null,
    limit: number | undefined,
    keyed: boolean,
    versioned?: boolean
  ) => Effect.Effect<Array<Row>>
  /** The key of a row as a keyed `page` returned it; must be taken before `strip`. */
  readonly keyOf: (row: Row) => PageKey
  /** Drops the hidden key columns, so that the row is the contract's item. */
  readonly strip: (rows: Array<Row>) => void
}

export interface RangeRead {
  readonly name: "activity" | "activityLoad" | "glucose" | "sleep" | "workouts" | "recovery" | "body"
  readonly sections: ReadonlyArray<Section>
  /**
   * The longest range (days) whose whole answer is read with its rows' versions, the version then coming from the
   * rows themselves rather than a query of its own; 0 where the rows served are not all the rows `version` covers.
   */
  readonly wholeDays: number
  /** Per section, the count of rows the read covers and a version that changes whenever one of them changes. */
  readonly version: (
    userId: UserId,
    query: RangeQuery
  ) => Effect.Effect<ReadonlyArray<{ readonly count: number; readonly version: string }>>
}

/** A timestamp column as the contract writes it: `Date#toJSON` (milliseconds, truncated as the driver does). */
export const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
/** A timestamp column to the microsecond, for keys. */
const exactText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/**
 * The columns of the four record types as the contract names them (`x` the record's table); shared by the range
 * reads and the single reads, which pass how a timestamp is written.
 */
export const sleepColumns = (time: (column: string) => string) =>
  `${time("x.start_at")} as "startUtc", ${time("x.end_at")} as "endUtc", ` +
  `x.utc_offset_minutes as "utcOffsetMinutes", x.nap as "isNap", x.in_bed_minutes as "inBedMinutes", ` +
  `x.asleep_minutes as "asleepMinutes", x.awake_minutes as "awakeMinutes", x.light_minutes as "lightMinutes", ` +
  `x.deep_minutes as "deepMinutes", x.rem_minutes as "remMinutes", x.efficiency_percent as "efficiencyPercent", ` +
  `x.latency_minutes as "latencyMinutes", x.average_heart_rate as "averageHeartRate", ` +
  `x.lowest_heart_rate as "lowestHeartRate", x.hrv_rmssd_ms as "hrvRmssdMs", ` +
  `x.respiratory_rate as "respiratoryRate", x.spo2_percent as "spo2Percent", ` +
  `x.provider_score as "providerScore", x.provider_score_scale as "providerScoreScale"`

export const workoutColumns = (time: (column: string) => string) =>
  `${time("x.start_at")} as "startUtc", ${time("x.end_at")} as "endUtc", ` +
  `x.utc_offset_minutes as "utcOffsetMinutes", x.activity_type as "activityType", ` +
  `x.sport_name as "providerActivityName", x.duration_minutes as "durationMinutes", ` +
  `x.energy_kilocalories as "activeEnergyKilocalories", x.distance_meters as "distanceMeters", x.steps, ` +
  `x.average_heart_rate as "averageHeartRate", x.max_heart_rate as "maxHeartRate", ` +
  `x.zone_durations_json as "zoneDurationsJson", x.strain as "loadScore", x.load_score_scale as "loadScoreScale"`

export const recoveryColumns = `x.resting_heart_rate as "restingHeartRate", x.hrv_rmssd_ms as "hrvRmssdMs", ` +
  `x.spo2_percent as "spo2Percent", x.respiratory_rate as "respiratoryRate", ` +
  `x.skin_temp_celsius as "skinTemperatureCelsius", ` +
  `x.skin_temperature_deviation_celsius as "skinTemperatureDeviationCelsius", ` +
  `x.recovery_score as "providerScore", x.provider_score_scale as "providerScoreScale"`

/** When a body measurement was taken; a row stored before the time was kept: when it was stored. */
const measuredAt = "coalesce(x.measured_at, x.created_at)"

export const bodyColumns = (time: (column: string) => string) =>
  `${time(measuredAt)} as "measuredAtUtc", x.weight_kilograms as "weightKilograms", ` +
  `x.height_meters as "heightMeters", x.body_fat_percent as "bodyFatPercent", x.bmi, ` +
  `x.lean_mass_kilograms as "leanMassKilograms"`

const dropHidden = (rows: Array<Row>) => {
  // Setting (not deleting) keeps the rows' shape; `JSON.stringify` leaves undefined values out.
  for (const row of rows) {
    row["_t"] = undefined
    row["_r"] = undefined
    row["_v"] = undefined
  }
}

/**
 * The version of rows read with `versioned`, exactly as `RangeRead.version` computes it in SQL for the same rows
 * (count, then the sum of the row versions); must be taken before `strip`.
 */
export const versionOfRows = (rows: ReadonlyArray<Row>) => {
  let sum = 0
  for (const row of rows) sum += Number(row["_v"])
  return { count: rows.length, version: `${rows.length}:${sum}` }
}

export class RangeReads extends Effect.Service<RangeReads>()("@pulsebridge/server/RangeReads", {
  effect: Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const lit = (text: string) => sql.literal(text)

    const providerFilter = (alias: string, provider: string | undefined) =>
      provider === undefined ? lit("") : sql`and ${lit(alias)}.provider = ${provider}`
    const limitClause = (limit: number | undefined) => limit === undefined ? lit("") : sql`limit ${limit}`

    /** The rows of a table the user's range covers: not disconnected, in the range, of the provider asked for. */
    const covered = (alias: string, userId: UserId, query: RangeQuery) =>
      sql`${lit(alias)}.user_id = ${userId} and ${lit(alias)}.date between ${query.from} and ${query.to}
        and ${visibleConnection(sql, "c")} ${providerFilter(alias, query.provider)}`

    /** The version of the rows `from` + `where` select: their count and the sum of their row versions. */
    const versionOf = (alias: string, from: string, where: Statement.Fragment) =>
      sql`(select count(*)::text || ':' || coalesce(sum(${lit(alias)}.xmin::text::bigint), 0)::text
        from ${lit(from)} ${lit(alias)} join connections c on c.id = ${lit(alias)}.connection_id where ${where})`

    const parseVersions = (texts: ReadonlyArray<unknown>) =>
      texts.map((text) => {
        const value = String(text)
        return { count: Number(value.slice(0, value.indexOf(":"))), version: value }
      })

    /** A timed record section (glucose, load): keyed by date, provider, connection, time and record id. */
    const timedSection = (options: {
      readonly name: string | undefined
      readonly table: string
      readonly columns: string
      readonly time: string
      readonly where: (userId: UserId, query: RangeQuery) => Statement.Fragment
    }): Section => {
      const order = `x.date, x.provider, x.connection_id, ${options.time}, x.provider_record_id`
      return {
        name: options.name,
        keyLength: 5,
        keyKinds: ["date", "text", "uuid", "time", "text"],
        page: (userId, query, after, limit, keyed, versioned) =>
          sql<Row>`
            select ${lit(options.columns)}${
            lit(keyed ? `, ${exactText(options.time)} as "_t", x.provider_record_id as "_r"` : "")
          }${lit(versioned === true ? `, x.xmin::text as "_v"` : "")}
            from ${lit(options.table)} x join connections c on c.id = x.connection_id
            where ${options.where(userId, query)} ${
            after === null
              ? lit("")
              // The date bound on its own lets the (user_id, date) index skip the pages before.
              : sql`and x.date >= ${after[0]}::date and (${lit(order)}) > (${after[0]}::date, ${after[1]}, ${
                after[2]
              }::uuid, ${after[3]}::timestamptz, ${after[4]})`
          }
            order by ${lit(order)} ${limitClause(limit)}
          `.pipe(Effect.map((rows) => rows as Array<Row>), Effect.orDie),
        keyOf: (row) => [row["date"], row["provider"], row["connectionId"], row["_t"], row["_r"]] as Array<string>,
        strip: (rows) => {
          if (rows.length > 0 && ("_t" in rows[0]! || "_v" in rows[0]!)) dropHidden(rows)
        }
      }
    }

    const glucoseColumns = (extra: string) =>
      `x.connection_id as "connectionId", x.provider, x.date::text as date, ` +
      `${isoText("x.system_time")} as "systemTime", ${isoText("x.display_time")} as "displayTime", ${extra}`

    const readings = timedSection({
      name: "readings",
      table: "glucose_readings",
      columns: glucoseColumns(
        `x.value, x.trend, x.trend_rate as "trendRate", x.unit, x.rate_unit as "rateUnit", x.status, ` +
          `x.transmitter_id as "transmitterId", x.provider_record_id as "recordId"`
      ),
      time: "x.system_time",
      where: (userId, query) => covered("x", userId, query)
    })
    const notDeleted = lit(`(x.event_status is null or x.event_status <> 'Deleted')`)
    const events = timedSection({
      name: "events",
      table: "glucose_events",
      columns: glucoseColumns(
        `x.event_type as "eventType", x.event_sub_type as "eventSubType", x.value, x.unit, ` +
          `x.provider_record_id as "eventId"`
      ),
      time: "x.system_time",
      where: (userId, query) => sql`${covered("x", userId, query)} and ${notDeleted}`
    })
    const calibrations = timedSection({
      name: "calibrations",
      table: "glucose_calibrations",
      columns: glucoseColumns(`x.value, x.unit`),
      time: "x.system_time",
      where: (userId, query) => covered("x", userId, query)
    })

    const glucose: RangeRead = {
      name: "glucose",
      sections: [readings, events, calibrations],
      // A month of 5-minute readings (8,928 per connection) is read in one piece.
      wholeDays: 31,
      version: (userId, query) =>
        sql<{ r: string; e: string; c: string }>`
          select ${versionOf("x", "glucose_readings", covered("x", userId, query))} as r,
            ${versionOf("x", "glucose_events", sql`${covered("x", userId, query)} and ${notDeleted}`)} as e,
            ${versionOf("x", "glucose_calibrations", covered("x", userId, query))} as c
        `.pipe(Effect.map(([row]) => parseVersions([row!.r, row!.e, row!.c])), Effect.orDie)
    }

    // The windows whose values are complete (see `HealthDataRepo`).
    const scored = lit(
      `x.load_score is not null and x.energy_kilocalories is not null and x.average_heart_rate is not null ` +
        `and x.max_heart_rate is not null`
    )
    const loadWhere = (userId: UserId, query: RangeQuery) => sql`${covered("x", userId, query)} and ${scored}`
    const activityLoad: RangeRead = {
      name: "activityLoad",
      // A few windows a day: the longest range is small.
      wholeDays: 366,
      sections: [timedSection({
        name: undefined,
        table: "daily_load",
        columns: `x.connection_id as "connectionId", x.provider, x.date::text as date, ` +
          `x.window_kind as "windowKind", ${isoText("x.window_start")} as "windowStartUtc", ` +
          `${isoText("x.window_end")} as "windowEndUtc", x.load_score as "loadScore", ` +
          `x.load_score_scale as "loadScoreScale", x.energy_kilocalories as "energyKilocalories", ` +
          `x.average_heart_rate as "averageHeartRate", x.max_heart_rate as "maxHeartRate", ` +
          `x.distance_meters as "distanceMeters", x.steps, x.zone_durations_json as "zoneDurationsJson", ` +
          `x.source_confidence as "sourceConfidence"`,
        time: "x.window_start",
        where: loadWhere
      })],
      version: (userId, query) =>
        sql<{ v: string }>`select ${versionOf("x", "daily_load", loadWhere(userId, query))} as v`.pipe(
          Effect.map(([row]) => parseVersions([row!.v])),
          Effect.orDie
        )
    }

    // A day stored twice for one connection (a provider's record id changed) is served once: the latest stored.
    const activitySection: Section = {
      name: undefined,
      keyLength: 3,
      keyKinds: ["date", "text", "uuid"],
      page: (userId, query, after, limit) =>
        sql<Row>`
          select * from (
            select distinct on (x.connection_id, x.date)
              x.connection_id as "connectionId", x.provider, x.date::text as date, x.steps,
              x.calories_out as "caloriesOut", x.distance_meters as "distanceMeters",
              x.light_active_minutes as "lightActiveMinutes", x.moderate_active_minutes as "moderateActiveMinutes",
              x.vigorous_active_minutes as "vigorousActiveMinutes", x.sedentary_minutes as "sedentaryMinutes",
              x.floors_climbed as "floorsClimbed"
            from daily_activity x join connections c on c.id = x.connection_id
            where ${covered("x", userId, query)}
            order by x.connection_id, x.date, x.updated_at desc
          ) d
          ${
          after === null
            ? lit("")
            : sql`where (d.date, d.provider, d."connectionId") > (${after[0]}, ${after[1]}, ${after[2]}::uuid)`
        }
          order by d.date, d.provider, d."connectionId" ${limitClause(limit)}
        `.pipe(Effect.map((rows) => rows as Array<Row>), Effect.orDie),
      keyOf: (row) => [row["date"], row["provider"], row["connectionId"]] as Array<string>,
      strip: () => {}
    }
    const activity: RangeRead = {
      name: "activity",
      // The days served are the latest stored of each; the version covers every stored one.
      wholeDays: 0,
      sections: [activitySection],
      version: (userId, query) =>
        sql<{ v: string }>`select ${versionOf("x", "daily_activity", covered("x", userId, query))} as v`.pipe(
          Effect.map(([row]) => parseVersions([row!.v])),
          Effect.orDie
        )
    }

    /**
     * A read of one of the record tables of sleep, workouts, recovery and body measurements: every record of the
     * range (a few a day), keyed by its time.
     */
    const recordRead = (
      name: "sleep" | "workouts" | "recovery" | "body",
      table: string,
      columns: string,
      time: string,
      only = ""
    ): RangeRead => {
      const where = (userId: UserId, query: RangeQuery) =>
        only === "" ? covered("x", userId, query) : sql`${covered("x", userId, query)} and ${lit(only)}`
      return {
        name,
        wholeDays: 366,
        sections: [timedSection({
          name: undefined,
          table,
          columns: `x.id::text as id, x.provider_record_id as "providerRecordId", ` +
            `x.connection_id as "connectionId", x.provider, x.date::text as date, ${columns}`,
          time,
          where
        })],
        version: (userId, query) =>
          sql<{ v: string }>`select ${versionOf("x", table, where(userId, query))} as v`.pipe(
            Effect.map(([row]) => parseVersions([row!.v])),
            Effect.orDie
          )
      }
    }

    const sleep = recordRead("sleep", "sleep_sessions", sleepColumns(isoText), "x.start_at")
    const workouts = recordRead("workouts", "workouts", workoutColumns(isoText), "x.start_at")
    // A WHOOP recovery says nothing until WHOOP has scored it.
    const recovery = recordRead(
      "recovery",
      "recoveries",
      recoveryColumns,
      "(x.date::timestamp at time zone 'UTC')",
      "x.score_state = 'SCORED'"
    )
    const body = recordRead("body", "body_measurement_snapshots", bodyColumns(isoText), measuredAt)

    return { activity, activityLoad, glucose, sleep, workouts, recovery, body } as const
  })
}) {}
