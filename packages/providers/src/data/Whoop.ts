/**
 * Where WHOOP's data reading lived before providers became plug-ins (`whoop/`); kept so that
 * imports of this path still resolve.
 */
import * as WhoopData from "../whoop/Data.js"

/** @deprecated Use `WhoopPlugin.data.notify` with a `WhoopEvent` notification. */
export const fetchWhoopNotified = WhoopData.fetchWhoopNotified
