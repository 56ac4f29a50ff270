/**
 * The migrations, in order. Keys are `NNNN_name`; each migration runs once, in a transaction.
 */
import m0001 from "./0001_foundation.js"
import m0002 from "./0002_connect_flow.js"
import m0003 from "./0003_sync.js"
import m0004 from "./0004_journal.js"
import m0005 from "./0005_rate_limits.js"
import m0006 from "./0006_provider_fidelity.js"
import m0007 from "./0007_whoop_wake_day.js"
import m0008 from "./0008_garmin_oauth2.js"
import m0009 from "./0009_fitbit_google_health.js"
import m0010 from "./0010_daily_coverage.js"
import m0011 from "./0011_sync_progress.js"
import m0012 from "./0012_webhooks_out.js"
import m0013 from "./0013_backfill_quarantined.js"
import m0014 from "./0014_erasure.js"
import m0015 from "./0015_portal.js"
import m0016 from "./0016_record_owner_key.js"
import m0017 from "./0017_meal_responses.js"
import m0018 from "./0018_webhook_breaker.js"
import m0019 from "./0019_health_records.js"
import m0020 from "./0020_glucose_page_key.js"
import m0021 from "./0021_audit_filters.js"
import m0022 from "./0022_overview_indexes.js"
import m0023 from "./0023_operator_roles_totp.js"
import m0024 from "./0024_webhook_attempts.js"
import m0025 from "./0025_sandbox_test_users.js"
import m0026 from "./0026_mcp_oauth.js"

export const migrations = {
  "0001_foundation": m0001,
  "0002_connect_flow": m0002,
  "0003_sync": m0003,
  "0004_journal": m0004,
  "0005_rate_limits": m0005,
  "0006_provider_fidelity": m0006,
  "0007_whoop_wake_day": m0007,
  "0008_garmin_oauth2": m0008,
  "0009_fitbit_google_health": m0009,
  "0010_daily_coverage": m0010,
  "0011_sync_progress": m0011,
  "0012_webhooks_out": m0012,
  "0013_backfill_quarantined": m0013,
  "0014_erasure": m0014,
  "0015_portal": m0015,
  "0016_record_owner_key": m0016,
  "0017_meal_responses": m0017,
  "0018_webhook_breaker": m0018,
  "0019_health_records": m0019,
  "0020_glucose_page_key": m0020,
  "0021_audit_filters": m0021,
  "0022_overview_indexes": m0022,
  "0023_operator_roles_totp": m0023,
  "0024_webhook_attempts": m0024,
  "0025_sandbox_test_users": m0025,
  "0026_mcp_oauth": m0026
}
