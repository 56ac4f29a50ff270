/**
 * A user's registrations with consumers: ending one (deregistration, from the API or the
 * control) revokes its tokens (known but refused with 403, as Garmin answers a revoked token)
 * and drops its pending backfills; notifications go only to active ones.
 */
import type { GarminCore } from "./Shapes.js"
import { registrationKey } from "./Shapes.js"

export const makeGarminRegistrations = (core: GarminCore) => {
  const deregister = (consumerKey: string | undefined, userId: string) => {
    const s = core.state
    for (const registration of Object.values(s.registrations)) {
      if (registration.userId === userId && (consumerKey === undefined || registration.consumerKey === consumerKey)) {
        registration.active = false
      }
    }
    for (const record of Object.values(s.uats)) {
      if (record.userId === userId && (consumerKey === undefined || record.consumerKey === consumerKey)) {
        record.revoked = true
      }
    }
    s.pendingBackfills = s.pendingBackfills.filter((b) =>
      !(b.userId === userId && (consumerKey === undefined || b.consumerKey === consumerKey))
    )
    core.commit()
  }

  const activeRegistration = (clientId: string | undefined, userId: string) => {
    const consumerKey = core.client(clientId).clientId
    const registration = core.state.registrations[registrationKey(consumerKey, userId)]
    return registration !== undefined && registration.active ? registration : undefined
  }

  return { deregister, activeRegistration }
}
