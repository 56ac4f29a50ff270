/**
 * Client-side routes under `/portal`: the path is the state (a reload or a shared link opens the same
 * page, which the server answers with `index.html`). A dozen lines instead of a router library.
 */
import { useEffect, useState } from "preact/hooks"

const listeners = new Set<() => void>()

export const navigate = (to: string, options: { readonly replace?: boolean } = {}) => {
  if (options.replace === true) history.replaceState(null, "", to)
  else history.pushState(null, "", to)
  listeners.forEach((listener) => listener())
  window.scrollTo(0, 0)
}

window.addEventListener("popstate", () => listeners.forEach((listener) => listener()))

/** The current location (path and query), re-rendering on every navigation. */
export const useLocation = () => {
  const [location, setLocation] = useState(() => ({ path: window.location.pathname, search: window.location.search }))
  useEffect(() => {
    const update = () => setLocation({ path: window.location.pathname, search: window.location.search })
    listeners.add(update)
    return () => void listeners.delete(update)
  }, [])
  return location
}

/** Matches `/portal/apps/:appId` against a path; the named segments, decoded, or undefined. */
export const match = (pattern: string, path: string): Record<string, string> | undefined => {
  const want = pattern.split("/").filter((s) => s !== "")
  const have = path.split("/").filter((s) => s !== "")
  if (want.length !== have.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!
    if (segment.startsWith(":")) params[segment.slice(1)] = decodeURIComponent(have[i]!)
    else if (segment !== have[i]) return undefined
  }
  return params
}
