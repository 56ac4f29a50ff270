/**
 * Loaded into a child server by a test that measures its memory (`node --expose-gc --require <this file>`, with an
 * IPC channel): on the message "heap" it runs a full garbage collection and answers with the process's memory
 * figures (`process.memoryUsage()`), so that what the server still holds after a load is told apart from what it
 * merely has not collected yet. The channel does not keep the process alive.
 */
"use strict"
if (typeof process.send === "function") {
  process.on("message", (message) => {
    if (message !== "heap") return
    if (typeof globalThis.gc === "function") globalThis.gc()
    process.send({ heap: process.memoryUsage() })
  })
  if (process.channel !== undefined) process.channel.unref()
}
