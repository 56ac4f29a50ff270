/**
 * Where webhooks may go: the URL rules (`https`; plain `http` only to loopback in sandbox mode) and
 * the address guard (no private, loopback, link-local or otherwise internal or special address), on
 * by default and off only in sandbox mode or where the operator turns it off with
 * `WEBHOOK_ALLOW_PRIVATE=true`. Endpoints check both when a URL is set; the delivery checks them
 * again, on the address it actually connects to, so a DNS answer that changes after the check cannot
 * reach an internal address.
 */
import * as dns from "node:dns"
import * as net from "node:net"

/** IPv4 ranges no webhook may reach while the guard is on. */
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
    ["192.0.2.0", 24], // documentation
    ["192.88.99.0", 24], // 6to4 relays
    ["192.168.0.0", 16],
    ["198.18.0.0", 15], // benchmarking
    ["198.51.100.0", 24], // documentation
    ["203.0.113.0", 24], // documentation
    ["224.0.0.0", 4], // multicast
    ["240.0.0.0", 4] // reserved, broadcast
  ] as const
) internal.addSubnet(address, prefix, "ipv4")

/**
 * IPv6 ranges refused whole. Forms that embed an IPv4 address the network may route to (IPv4-compatible,
 * IPv4-translated, 6to4, Teredo, local-use NAT64) are refused whatever the IPv4 inside: none is how a real
 * receiver is reached, and which IPv4 a relay or translator ends up at is not ours to know. The IPv4-mapped
 * (`::ffff:0:0/96`) and well-known NAT64 (`64:ff9b::/96`) forms are judged by the IPv4 they carry.
 */
const internalIpv6 = new net.BlockList()
for (
  const [address, prefix] of [
    ["::", 96], // unspecified, loopback, IPv4-compatible (deprecated)
    ["::ffff:0:0:0", 96], // IPv4-translated
    ["64:ff9b:1::", 48], // local-use NAT64
    ["100::", 64], // discard-only
    ["2001::", 32], // Teredo
    ["2001:db8::", 32], // documentation
    ["2002::", 16], // 6to4
    ["fc00::", 7], // unique local
    ["fe80::", 10], // link-local
    ["fec0::", 10], // site-local (deprecated)
    ["ff00::", 8] // multicast
  ] as const
) internalIpv6.addSubnet(address, prefix, "ipv6")

/** The eight 16-bit groups of an IPv6 address in any written form (`::`, a trailing dotted IPv4, a zone). */
const ipv6Groups = (address: string): ReadonlyArray<number> | undefined => {
  let text = address.toLowerCase().replace(/%.*$/, "")
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const parse = (part: string) => part === "" ? [] : part.split(":").map((group) => parseInt(group, 16))
  const left = parse(halves[0]!)
  const right = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - left.length - right.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const groups = [...left, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right]
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:10.0.0.1`) or well-known NAT64 (`64:ff9b::a00:1`) address. */
const embeddedIpv4 = (groups: ReadonlyArray<number>): string | undefined => {
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)
  if (!mapped && !nat64) return undefined
  const high = groups[6]!
  const low = groups[7]!
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/** Whether an IP address is private, loopback, link-local or otherwise not a public internet address. */
export const isInternalAddress = (address: string): boolean => {
  const family = net.isIP(address)
  if (family === 4) return internal.check(address, "ipv4")
  if (family === 6) {
    const groups = ipv6Groups(address)
    // An IPv6 address this parser cannot read is not trusted to be public.
    if (groups === undefined) return true
    const v4 = embeddedIpv4(groups)
    if (v4 !== undefined) return internal.check(v4, "ipv4")
    return internalIpv6.check(groups.map((group) => group.toString(16)).join(":"), "ipv6")
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
  readonly sandbox: boolean
  /** `WEBHOOK_ALLOW_PRIVATE`, by default on in sandbox mode only: the guard off. */
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
  if (url.protocol === "http:" && !(rules.sandbox && isLoopbackHost(url.hostname))) {
    return "url must use https (plain http is accepted only to a loopback address in sandbox mode)"
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "url must use https"
  const host = unbracket(url.hostname)
  if (mustRefuseInternal(rules) && (isLoopbackHost(host) || isInternalAddress(host))) {
    return `url must not name a private, loopback, link-local or special-purpose address (${host})`
  }
  return undefined
}

/** Whether internal addresses are refused: the guard is on unless `WEBHOOK_ALLOW_PRIVATE` (sandbox mode's default). */
export const mustRefuseInternal = (rules: AddressRules) => !rules.allowPrivate

/**
 * A host whose address is refused. The message, which the app reads in its deliveries log, does not say
 * the address: what the server's own DNS answers for an internal name is not the app's to learn.
 */
export class AddressRefusedError extends Error {
  readonly code = "EADDRREFUSED"
  constructor(readonly host: string, readonly address: string) {
    super(`${host} resolves to a private, loopback or link-local address`)
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
