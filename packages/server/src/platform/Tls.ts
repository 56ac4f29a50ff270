/**
 * TLS for the API server: where its certificate and key come from (operator-supplied PEM files, or a self-signed
 * localhost certificate generated once under the data directory), and the HTTPS server that refuses plain HTTP
 * on its port with a JSON `HttpsRequired` error instead of letting the TLS layer drop the connection silently.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import * as http from "node:http"
import * as https from "node:https"
import type * as net from "node:net"
import * as path from "node:path"
import * as tls from "node:tls"
import { SettledResponse } from "./SettledResponse.js"

export class TlsError extends Data.TaggedError("TlsError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface CertificateOptions {
  readonly dataDir: string
  readonly certFile?: string | undefined
  readonly keyFile?: string | undefined
}

export interface Certificate {
  readonly cert: string
  readonly key: string
  readonly generated: boolean
}

export const httpsRequiredBody = JSON.stringify({
  _tag: "HttpsRequired",
  message: "HTTPS is required: this server only accepts TLS connections. Use https:// instead of http://."
})

// 825 days is the longest validity Apple platforms accept for a TLS server certificate; longer ones are rejected.
const validityDays = 825

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const isNotFound = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === "ENOENT"

const readPem = (file: string, what: string) =>
  Effect.tryPromise({
    try: () => fs.readFile(file, "utf8"),
    catch: (cause) => new TlsError({ message: `Cannot read TLS ${what} file "${file}": ${describe(cause)}`, cause })
  })

// Checking the pair up front turns a mismatched or non-PEM file into an error that names the files, rather than
// an opaque OpenSSL failure when the server starts or, worse, on the first handshake.
const parsePair = (cert: string, key: string, source: string) =>
  Effect.try({
    try: () => {
      const x509 = new crypto.X509Certificate(cert)
      const privateKey = crypto.createPrivateKey(key)
      if (!x509.checkPrivateKey(privateKey)) {
        throw new Error("the private key does not belong to the certificate")
      }
      return x509
    },
    catch: (cause) => new TlsError({ message: `Invalid TLS certificate or key (${source}): ${describe(cause)}`, cause })
  })

const readExisting = (certPath: string, keyPath: string) =>
  Effect.tryPromise({
    try: async () => {
      try {
        const [cert, key] = await Promise.all([fs.readFile(certPath, "utf8"), fs.readFile(keyPath, "utf8")])
        return { cert, key }
      } catch (cause) {
        if (isNotFound(cause)) return undefined
        throw cause
      }
    },
    catch: (cause) =>
      new TlsError({ message: `Cannot read TLS files "${certPath}" / "${keyPath}": ${describe(cause)}`, cause })
  })

const generateSelfSigned = Effect.tryPromise({
  try: async () => {
    const notBeforeDate = new Date()
    const notAfterDate = new Date(notBeforeDate.getTime() + validityDays * 24 * 60 * 60 * 1000)
    // Loaded only here: the generator and its X.509 libraries are a third of a megabyte that a start with a kept
    // certificate, and every CLI command, would otherwise load. A CommonJS module: its exports are the default.
    const { generate } = (await import("selfsigned")).default
    const pems = await generate([{ name: "commonName", value: "localhost" }], {
      keyType: "rsa",
      keySize: 2048,
      algorithm: "sha256",
      notBeforeDate,
      notAfterDate,
      extensions: [
        { name: "basicConstraints", cA: false, critical: true },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        {
          name: "subjectAltName",
          altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }, { type: 7, ip: "::1" }]
        }
      ]
    })
    return { cert: pems.cert, key: pems.private }
  },
  catch: (cause) =>
    new TlsError({ message: `Cannot generate a self-signed TLS certificate: ${describe(cause)}`, cause })
})

// Write-then-rename so a crash mid-write never leaves a truncated PEM that would fail every later start; the
// explicit chmod covers a file that already existed, whose mode writeFile would leave as it was.
const writeAtomically = async (file: string, contents: string, mode: number) => {
  const temporary = `${file}.${process.pid}.tmp`
  await fs.writeFile(temporary, contents, { mode })
  await fs.chmod(temporary, mode)
  await fs.rename(temporary, file)
}

export const loadOrCreateCertificate = (options: CertificateOptions): Effect.Effect<Certificate, TlsError> =>
  Effect.gen(function*() {
    const { certFile, keyFile } = options
    if (certFile !== undefined && keyFile !== undefined) {
      const [cert, key] = yield* Effect.all([readPem(certFile, "certificate"), readPem(keyFile, "key")])
      yield* parsePair(cert, key, `"${certFile}" / "${keyFile}"`)
      return { cert, key, generated: false }
    }
    if (certFile !== undefined || keyFile !== undefined) {
      return yield* new TlsError({
        message: "Both a TLS certificate file and a TLS key file are needed; only one of them was given"
      })
    }

    const dir = path.join(options.dataDir, "tls")
    const certPath = path.join(dir, "cert.pem")
    const keyPath = path.join(dir, "key.pem")
    const existing = yield* readExisting(certPath, keyPath)
    if (existing !== undefined) {
      const x509 = yield* parsePair(
        existing.cert,
        existing.key,
        `"${certPath}" / "${keyPath}"; delete them to have a new self-signed certificate generated`
      )
      // An expired certificate fails every handshake, so a fresh one is the only useful outcome.
      if (!(Date.parse(x509.validTo) <= Date.now())) {
        return { ...existing, generated: false }
      }
    }

    const pems = yield* generateSelfSigned
    yield* Effect.tryPromise({
      try: async () => {
        // The directory holds a private key, so only the owner may list it.
        await fs.mkdir(dir, { recursive: true, mode: 0o700 })
        await writeAtomically(keyPath, pems.key, 0o600)
        await writeAtomically(certPath, pems.cert, 0o644)
      },
      catch: (cause) =>
        new TlsError({ message: `Cannot write the generated TLS certificate to "${dir}": ${describe(cause)}`, cause })
    })
    return { ...pems, generated: true }
  })

// A peer gets this long to send its first byte, and a plain-HTTP peer this long of silence before it is dropped.
const idleTimeoutMs = 30_000

const tlsHandshakeByte = 0x16

const rawRefusal = "HTTP/1.1 400 Bad Request\r\n" +
  "content-type: application/json\r\n" +
  `content-length: ${Buffer.byteLength(httpsRequiredBody)}\r\n` +
  "connection: close\r\n" +
  "\r\n" +
  httpsRequiredBody

const ignoreError = () => {}

/**
 * The TLS context of an HTTPS client that trusts `extraCa` (PEM) besides, or with `withSystemRoots: false`
 * instead of, the system's root certificates. Made once and handed to the agent as its `secureContext`: a `ca`
 * option would be parsed again (with every root certificate) for each new connection.
 */
export const clientSecureContext = (
  extraCa: string | ReadonlyArray<string>,
  options: { readonly withSystemRoots?: boolean } = {}
): tls.SecureContext =>
  tls.createSecureContext({
    ca: [
      ...(options.withSystemRoots === false ? [] : tls.rootCertificates),
      ...(typeof extraCa === "string" ? [extraCa] : extraCa)
    ]
  })

export const makeHttpsServer = (options: { readonly cert: string; readonly key: string }): https.Server => {
  // A missing Host is answered by the application's listener, with the JSON error body.
  const server = https.createServer({
    cert: options.cert,
    key: options.key,
    requireHostHeader: false,
    ServerResponse: SettledResponse
  })

  // Never listens: it only parses the plain-HTTP sockets handed to it, so the refusal is a well-formed response.
  const refuse = (request: http.IncomingMessage, response: http.ServerResponse) => {
    response.writeHead(400, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(httpsRequiredBody),
      "connection": "close"
    })
    response.end(httpsRequiredBody, () => request.socket.end())
  }
  const plain = http.createServer({ requireHostHeader: false }, refuse)
  // An `Expect` header would otherwise get Node's bare 417 instead of the refusal.
  plain.on("checkExpectation", refuse)
  plain.on("connect", (_request: http.IncomingMessage, socket: net.Socket) => socket.end(rawRefusal))
  plain.timeout = idleTimeoutMs
  plain.on("clientError", (_error, socket) => {
    if (socket.writable) socket.write(rawRefusal)
    socket.destroy()
  })

  // Sockets not (yet) owned by the TLS layer: server.close() would otherwise wait on them until they time out.
  const unowned = new Set<net.Socket>()

  const tlsListeners = server.listeners("connection") as Array<(this: https.Server, socket: net.Socket) => void>
  for (const listener of tlsListeners) server.off("connection", listener)
  server.on("connection", (socket: net.Socket) => {
    unowned.add(socket)
    socket.once("close", () => unowned.delete(socket))
    // A peer resetting before or while we sniff emits ECONNRESET here; unhandled, it would crash the process.
    socket.on("error", ignoreError)
    const onTimeout = () => socket.destroy()
    socket.setTimeout(idleTimeoutMs, onTimeout)
    socket.once("data", (chunk: Buffer) => {
      socket.pause()
      socket.unshift(chunk)
      socket.setTimeout(0)
      socket.off("timeout", onTimeout)
      if (chunk[0] === tlsHandshakeByte) {
        unowned.delete(socket)
        // The TLS socket drains what was unshifted into its own handshake before reading the handle itself.
        for (const listener of tlsListeners) listener.call(server, socket)
      } else {
        plain.emit("connection", socket)
        socket.resume()
      }
    })
  })

  const close = server.close
  server.close = function(this: https.Server, callback?: (error?: Error) => void) {
    for (const socket of unowned) socket.destroy()
    return close.call(this, callback)
  } as typeof server.close

  return server
}
