/**
 * Where webhooks may go: the URL rules (`https`; plain `http` only to loopback in sandbox mode) and
 * the address rule (in production, no private, loopback, link-local or otherwise internal address
 * unless the operator allows it with `WEBHOOK_ALLOW_PRIVATE=true`). Endpoints check both when a URL
 * is set; the delivery checks them again, on the address it actually connects to, so a DNS answer
 * that changes after the check cannot reach an internal address.
 */
import * as dns from "node:dns"
import * as net from "node:net"

/** Ranges no webhook may reach in production without `WEBHOOK_ALLOW_PRIVATE`. */
const internal = new net.BlockList()
for (
  const [address, prefix] of [
    ["0.0.0.0", 8], // "this" network
    ["10.0.0.0", 8],
    ["100.64.0.0", 10], // carrier-grade NAT
    ["127.0.0.0", 8],
    ["169.254.0.0", 16], // link-local, cloud metadata services
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15], // benchmarking
    ["224.0.0.0", 4], // multicast
    ["240.0.0.0", 4] // reserved, broadcast
  ] as const
) internal.addSubnet(address, prefix, "ipv4")
for (
  const [address, prefix] of [
    ["::", 128],
    ["::1", 128],
    ["fc00::", 7], // unique local
    ["fe80::", 10], // link-local
    ["ff00::", 8] // multicast
  ] as const
) internal.addSubnet(address, prefix, "ipv6")

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address (`::ffff:10.0.0.1`, `64:ff9b::a00:1`). */
const embeddedIpv4 = (address: string): string | undefined => {
  const lower = address.toLowerCase()
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted !== null) return dotted[1]
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (hex === null) return undefined
  const high = parseInt(hex[1]!, 16)
  const low = parseInt(hex[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/** Whether an IP address is private, loopback, link-local or otherwise not on the public internet. */
export const isInternalAddress = (address: string): boolean => {
  const family = net.isIP(address)
  if (family === 4) return internal.check(address, "ipv4")
  if (family === 6) {
    const v4 = embeddedIpv4(address)
    return v4 !== undefined ? internal.check(v4, "ipv4") : internal.check(address, "ipv6")
  }
  return false
}

/** Whether a URL's host is a loopback name or address. */
export const isLoopbackHost = (hostname: string): boolean => {
  const host = unbracket(hostname)
  if (host === "localhost" || host.endsWith(".localhost")) return true
  return net.isIP(host) === 4 ? host.startsWith("127.") : host === "::1"
}

/** `[::1]` as `URL.hostname` writes it, without the brackets. */
export const unbracket = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1")

export interface AddressRules {
  readonly production: boolean
  readonly sandbox: boolean
  readonly allowPrivate: boolean
}

/** Why the URL may not receive webhooks by its form alone, or undefined when it may. */
export const urlProblem = (text: string, rules: AddressRules): string | undefined => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "url must be an absolute URL such as https://example.com/webhooks"
  }
  if (url.username !== "" || url.password !== "") return "url must not carry a user name or password"
  if (url.hash !== "") return "url must not have a fragment (#...)"
  if (url.hostname === "") return "url must name a host"
  if (url.protocol === "http:") {
    return rules.sandbox && isLoopbackHost(url.hostname)
      ? undefined
      : "url must use https (plain http is accepted only to a loopback address in sandbox mode)"
  }
  if (url.protocol !== "https:") return "url must use https"
  const host = unbracket(url.hostname)
  if (mustRefuseInternal(rules) && (isLoopbackHost(host) || isInternalAddress(host))) {
    return `url must not name a private, loopback or link-local address (${host}) in production`
  }
  return undefined
}

/** Whether internal addresses are refused: in production, unless the operator allows them. */
export const mustRefuseInternal = (rules: AddressRules) => rules.production && !rules.allowPrivate

/** A host whose address is refused. */
export class AddressRefusedError extends Error {
  readonly code = "EADDRREFUSED"
  constructor(readonly host: string, readonly address: string) {
    super(`${host} resolves to ${address}, a private, loopback or link-local address`)
  }
}

/** The addresses of a host name (or the address itself). */
export const resolveHost = (hostname: string): Promise<ReadonlyArray<string>> => {
  const host = unbracket(hostname)
  if (net.isIP(host) !== 0) return Promise.resolve([host])
  return dns.promises.lookup(host, { all: true }).then((found) => found.map((entry) => entry.address))
}

/**
 * `lookup` for the delivery's sockets: resolves like Node does, then refuses the connection when the
 * answer holds an internal address and the rules refuse those.
 */
export const guardedLookup = (rules: AddressRules): net.LookupFunction => (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return (callback as (e: Error) => void)(error)
    const refused = mustRefuseInternal(rules)
      ? addresses.find((entry) => isInternalAddress(entry.address))
      : undefined
    if (refused !== undefined) {
      return (callback as (e: Error) => void)(new AddressRefusedError(hostname, refused.address))
    }
    if (options.all === true) return (callback as (e: null, a: Array<dns.LookupAddress>) => void)(null, addresses)
    const first = addresses[0]
    if (first === undefined) {
      return (callback as (e: Error) => void)(
        Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" })
      )
    }
    callback(null, first.address, first.family)
  })
}
