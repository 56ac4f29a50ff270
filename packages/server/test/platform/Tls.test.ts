import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import * as http from "node:http"
import * as https from "node:https"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as tls from "node:tls"
import { loadOrCreateCertificate, makeHttpsServer, TlsError } from "../../src/platform/Tls.js"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "pulsebridge-tls-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const freshCertificate = Effect.flatMap(tempDir, (dataDir) => Effect.orDie(loadOrCreateCertificate({ dataDir })))

interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

const readReply = (response: http.IncomingMessage) =>
  new Promise<Reply>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.on("error", reject)
    response.on("end", () =>
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }))
  })

// agent: false so no pooled keep-alive socket outlives the test and holds the server open.
const httpsGet = (options: https.RequestOptions) =>
  Effect.promise(() =>
    new Promise<Reply>((resolve, reject) => {
      https.get({ host: "127.0.0.1", path: "/", agent: false, ...options }, (response) => {
        readReply(response).then(resolve, reject)
      }).on("error", reject)
    })
  )

const httpGet = (port: number) =>
  Effect.promise(() =>
    new Promise<Reply>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port, path: "/", agent: false }, (response) => {
        readReply(response).then(resolve, reject)
      }).on("error", reject)
    })
  )

const listen = (pems: { readonly cert: string; readonly key: string }) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: https.Server; readonly port: number }>((resume) => {
      const server = makeHttpsServer(pems)
      server.on("request", (_request, response) => response.end("ok"))
      server.listen(0, "127.0.0.1", () => {
        resume(Effect.succeed({ server, port: (server.address() as net.AddressInfo).port }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )

// Resolves with the server side of the next accepted connection, so a test can wait for the server to finish it.
const nextServerSocket = (server: https.Server) =>
  new Promise<net.Socket>((resolve) => server.once("connection", resolve))

const closed = (socket: net.Socket) =>
  new Promise<void>((resolve) => socket.destroyed ? resolve() : socket.once("close", () => resolve()))

// Everything the server sends until it closes the connection.
const rawExchange = (port: number, bytes: string) =>
  Effect.promise(() =>
    new Promise<string>((resolve, reject) => {
      const chunks: Array<Buffer> = []
      const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes, "latin1"))
      socket.on("data", (chunk: Buffer) => chunks.push(chunk))
      socket.on("error", reject)
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")))
    })
  )

const expectServesHttps = (port: number, ca: string) =>
  Effect.gen(function*() {
    const reply = yield* httpsGet({ port, ca, servername: "localhost" })
    expect(reply.status).toBe(200)
    expect(reply.body).toBe("ok")
  })

describe("loadOrCreateCertificate", () => {
  it.scopedLive("generates a localhost certificate once and reuses it", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir
      const first = yield* loadOrCreateCertificate({ dataDir })
      expect(first.generated).toBe(true)

      const keyStat = yield* Effect.promise(() => fs.stat(path.join(dataDir, "tls", "key.pem")))
      const certStat = yield* Effect.promise(() => fs.stat(path.join(dataDir, "tls", "cert.pem")))
      if (process.platform !== "win32") {
        expect(keyStat.mode & 0o777).toBe(0o600)
        expect(certStat.mode & 0o777).toBe(0o644)
      }
      expect(yield* Effect.promise(() => fs.readFile(path.join(dataDir, "tls", "key.pem"), "utf8"))).toBe(first.key)

      const x509 = new crypto.X509Certificate(first.cert)
      expect(x509.subject).toContain("CN=localhost")
      expect(x509.subjectAltName).toContain("DNS:localhost")
      expect(x509.subjectAltName).toContain("IP Address:127.0.0.1")
      expect(x509.subjectAltName).toMatch(/IP Address:(::1|0:0:0:0:0:0:0:1)\b/)
      const validDays = (Date.parse(x509.validTo) - Date.parse(x509.validFrom)) / (24 * 60 * 60 * 1000)
      expect(Math.round(validDays)).toBe(825)
      expect(x509.checkPrivateKey(crypto.createPrivateKey(first.key))).toBe(true)

      const second = yield* loadOrCreateCertificate({ dataDir })
      expect(second).toEqual({ cert: first.cert, key: first.key, generated: false })
    }))

  it.scopedLive("uses explicit certificate and key files", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const dir = yield* tempDir
      const certFile = path.join(dir, "server.crt")
      const keyFile = path.join(dir, "server.key")
      yield* Effect.promise(() => Promise.all([fs.writeFile(certFile, pems.cert), fs.writeFile(keyFile, pems.key)]))

      const loaded = yield* loadOrCreateCertificate({ dataDir: dir, certFile, keyFile })
      expect(loaded).toEqual({ cert: pems.cert, key: pems.key, generated: false })
      // Explicit files must not cause a self-signed certificate to be generated alongside them.
      const entries = yield* Effect.promise(() => fs.readdir(dir))
      expect(entries.sort()).toEqual(["server.crt", "server.key"])
    }))

  it.scopedLive("fails when only one of certFile and keyFile is given", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir
      const onlyCert = yield* Effect.flip(loadOrCreateCertificate({ dataDir, certFile: path.join(dataDir, "a.pem") }))
      expect(onlyCert).toBeInstanceOf(TlsError)
      expect(onlyCert.message).toContain("Both")
      const onlyKey = yield* Effect.flip(loadOrCreateCertificate({ dataDir, keyFile: path.join(dataDir, "a.pem") }))
      expect(onlyKey).toBeInstanceOf(TlsError)
      expect(onlyKey.message).toContain("Both")
    }))

  it.scopedLive("fails with the file name when a file is unreadable or the pair does not match", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir
      const certFile = path.join(dataDir, "missing.crt")
      const keyFile = path.join(dataDir, "missing.key")
      const missing = yield* Effect.flip(loadOrCreateCertificate({ dataDir, certFile, keyFile }))
      expect(missing._tag).toBe("TlsError")
      expect(missing.message).toContain("missing.")

      const a = yield* freshCertificate
      const b = yield* freshCertificate
      yield* Effect.promise(() => Promise.all([fs.writeFile(certFile, a.cert), fs.writeFile(keyFile, b.key)]))
      const mismatched = yield* Effect.flip(loadOrCreateCertificate({ dataDir, certFile, keyFile }))
      expect(mismatched._tag).toBe("TlsError")
      expect(mismatched.message).toContain("does not belong")
    }))
})

describe("makeHttpsServer", () => {
  it.scopedLive("serves HTTPS verified against the generated certificate by name and by IP", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const { port } = yield* listen(pems)
      yield* expectServesHttps(port, pems.cert)
      // No servername: the client checks 127.0.0.1 against the certificate's IP subjectAltName.
      const byIp = yield* httpsGet({ port, ca: pems.cert })
      expect(byIp.status).toBe(200)
    }))

  it.scopedLive("refuses plain HTTP with a JSON 400", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const { port } = yield* listen(pems)
      const reply = yield* httpGet(port)
      expect(reply.status).toBe(400)
      expect(reply.headers["content-type"]).toBe("application/json")
      expect(reply.headers["connection"]).toBe("close")
      const body = JSON.parse(reply.body)
      expect(body._tag).toBe("HttpsRequired")
      expect(body.message).toContain("HTTPS is required")
      yield* expectServesHttps(port, pems.cert)
    }))

  it.scopedLive("answers garbage with a 400 and keeps serving HTTPS", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const { port } = yield* listen(pems)
      const raw = yield* rawExchange(port, "\x00\x01hello\r\n\r\n")
      expect(raw).toMatch(/^HTTP\/1\.1 400 /)
      expect(raw).toContain("\"_tag\":\"HttpsRequired\"")
      yield* expectServesHttps(port, pems.cert)
    }))

  it.scopedLive("survives peers that close or reset before sending anything", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const { port, server } = yield* listen(pems)
      for (const hangUp of [(socket: net.Socket) => socket.end(), (socket: net.Socket) => socket.resetAndDestroy()]) {
        yield* Effect.promise(async () => {
          const accepted = nextServerSocket(server)
          const client = net.connect(port, "127.0.0.1", () => hangUp(client))
          client.on("error", () => {})
          await closed(await accepted)
        })
      }
      yield* expectServesHttps(port, pems.cert)
    }))

  it.scopedLive("calls back an answer written after its client left (SettledResponse)", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const { port, server } = yield* listen(pems)
      server.removeAllListeners("request")
      const called = yield* Effect.promise(() =>
        new Promise<boolean>((resolve) => {
          const client = tls.connect({ port, host: "127.0.0.1", ca: pems.cert, servername: "localhost" }, () => {
            client.write("GET / HTTP/1.1\r\nhost: localhost\r\n\r\n")
          })
          // The client leaves once its request has arrived; the answer is written after that.
          server.once("request", (_request, response: http.ServerResponse) => {
            response.once("close", () => response.end("late", () => resolve(true)))
            client.destroy()
          })
          client.on("error", () => {})
          setTimeout(() => resolve(false), 5_000)
        })
      )
      expect(called).toBe(true)
    }))

  it.scopedLive("closes despite a connected peer that never sends", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const { port, server } = yield* listen(pems)
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const accepted = nextServerSocket(server)
          const socket = net.connect(port, "127.0.0.1")
          socket.on("error", () => {})
          await accepted
          return socket
        }),
        (socket) => Effect.sync(() => socket.destroy())
      )
      yield* Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
      yield* Effect.promise(() => closed(client))
    }))

  it.scopedLive("works as the server of NodeHttpServer.layer", () =>
    Effect.gen(function*() {
      const pems = yield* freshCertificate
      const layer = HttpServer.serve(HttpServerResponse.text("ok")).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => makeHttpsServer(pems), { port: 0, host: "127.0.0.1" }))
      )
      const context = yield* Layer.build(layer)
      const address = (yield* Effect.provide(HttpServer.HttpServer, context)).address
      if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
      yield* expectServesHttps(address.port, pems.cert)
      const plain = yield* httpGet(address.port)
      expect(plain.status).toBe(400)
    }))
})
