/**
 * Where Garmin's data reading lived before providers became plug-ins (`garmin/`); kept so that
 * imports of this path still resolve.
 */
import * as GarminData from "../garmin/Data.js"
import * as GarminNormalise from "../garmin/Normalise.js"

/** @deprecated Use `GarminPlugin.data.notify` with a `GarminPush` notification. */
export const garminPushDailies = GarminNormalise.garminPushDailies

/** @deprecated Use `GarminPlugin.data.notify` with a `GarminPing` notification. */
export const pullGarminCallback = GarminData.pullGarminCallback
