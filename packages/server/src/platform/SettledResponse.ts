/**
 * The `ServerResponse` of this server's listeners: Node's, except that the callback of `end` is called whenever the
 * response is over, also when its client went away first.
 *
 * Node calls that callback on the response's `finish` only, which a response whose connection closed before it was
 * written out never emits. The platform writes each answer by calling `end` and waiting for the callback, in a region
 * that cannot be interrupted; so a request whose client gave up (a timeout, a closed tab, a dropped mobile link) before
 * its answer was sent kept its fiber, and everything that fiber held, for the life of the process, and was never
 * logged or counted.
 */
import * as http from "node:http"

type EndCallback = (error?: Error | null) => void

export class SettledResponse<Request extends http.IncomingMessage = http.IncomingMessage>
  extends http.ServerResponse<Request>
{
  override end(...args: Array<unknown>): this {
    const index = args.findIndex((arg) => typeof arg === "function")
    if (index === -1) return super.end(...(args as [])) as this
    const callback = args[index] as EndCallback
    // Gone already: nothing will be written, and neither `finish` nor `close` comes again.
    if (this.destroyed) {
      process.nextTick(callback)
      return this
    }
    let settled = false
    const settle = (error?: Error | null) => {
      if (settled) return
      settled = true
      this.off("close", onClose)
      callback(error)
    }
    // `close` follows `finish` on a response that was written out, and comes alone on one whose connection closed.
    const onClose = () => settle()
    this.once("close", onClose)
    const rest = [...args]
    rest[index] = settle
    return super.end(...(rest as [])) as this
  }
}
