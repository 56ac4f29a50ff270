/**
 * What PulseBridge offers of each provider: its listing (name, slug, auth type, data types).
 */
import type { Provider } from "@pulsebridge/domain"
import { ProviderInfo } from "@pulsebridge/domain"

export const catalog: Record<Provider, ProviderInfo> = {
  Fitbit: new ProviderInfo({
    name: "Fitbit",
    slug: "fitbit",
    authType: "OAuth2",
    logoUrl: null,
    supportedDataTypes: ["DailyActivity"]
  }),
  Garmin: new ProviderInfo({
    name: "Garmin",
    slug: "garmin",
    authType: "OAuth1",
    logoUrl: null,
    supportedDataTypes: ["DailyActivity"]
  }),
  WHOOP: new ProviderInfo({
    name: "WHOOP",
    slug: "whoop",
    authType: "OAuth2",
    logoUrl: null,
    supportedDataTypes: [
      "Sleep",
      "ActivitySession",
      "Recovery",
      "ActivityLoadDaily",
      "ProfileSnapshot",
      "BodyMeasurementSnapshot"
    ]
  }),
  Dexcom: new ProviderInfo({
    name: "Dexcom",
    slug: "dexcom",
    authType: "OAuth2",
    logoUrl: null,
    supportedDataTypes: ["GlucoseReading", "GlucoseEvent", "GlucoseCalibration"]
  })
}

/** The providers in listing order. */
export const providerOrder: ReadonlyArray<Provider> = ["Fitbit", "Garmin", "WHOOP", "Dexcom"]
