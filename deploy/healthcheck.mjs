/**
 * The container's health probe: asks this process's own `/health/ready` (or the path given as the
 * first argument) and exits 0 on a 200, 1 otherwise. The runtime image has no curl, and the probe must
 * speak the server's protocol of the moment: HTTPS with whatever certificate it serves (it is asking
 * itself on loopback), or plain HTTP marked as forwarded over HTTPS behind a proxy (`TRUST_PROXY`),
 * which the server otherwise refuses.
 */
import * as http from "node:http"
import * as https from "node:https"

const path = process.argv[2] ?? "/health/ready"
const port = Number(process.env.PORT ?? "8443")
const listen = process.env.HOST ?? ""
const host = listen === "" || listen === "0.0.0.0" || listen === "::" ? "127.0.0.1" : listen
// The spellings Effect's Config.boolean reads as true.
const trustProxy = /^(true|yes|on|1|y)$/i.test(process.env.TRUST_PROXY ?? "")

const request = trustProxy
  ? http.get({ host, port, path, headers: { "x-forwarded-proto": "https" }, timeout: 4000 })
  : https.get({ host, port, path, rejectUnauthorized: false, timeout: 4000 })

request.on("response", (response) => {
  response.resume()
  process.exit(response.statusCode === 200 ? 0 : 1)
})
request.on("timeout", () => request.destroy(new Error("timed out")))
request.on("error", (error) => {
  console.error(`health check of ${path} failed: ${error.message}`)
  process.exit(1)
})
