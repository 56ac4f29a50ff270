/**
 * The migrations, in order. Keys are `NNNN_name`; each migration runs once, in a transaction.
 */
import m0001 from "./0001_foundation.js"
import m0002 from "./0002_connect_flow.js"

export const migrations = {
  "0001_foundation": m0001,
  "0002_connect_flow": m0002
}
