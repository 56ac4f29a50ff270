/**
 * Fixed-window rate counters, the way the providers count: windows aligned to multiples of their
 * length, so a limit resets at the same instant for every caller.
 */

export interface WindowHit {
  readonly count: number
  readonly remaining: number
  /** Seconds until the window resets (at least 1). */
  readonly resetSeconds: number
  readonly limited: boolean
}

/** Counters for windows aligned to multiples of their length (Fitbit resets at the top of the hour). */
export class RateWindows {
  private readonly windows = new Map<string, { start: number; count: number }>()
  constructor(private readonly enforce = true) {}
  hit(key: string, windowMs: number, limit: number, nowMs: number): WindowHit {
    const start = Math.floor(nowMs / windowMs) * windowMs
    const current = this.windows.get(key)
    const entry = current !== undefined && current.start === start ? current : { start, count: 0 }
    entry.count += 1
    this.windows.set(key, entry)
    return {
      count: entry.count,
      remaining: Math.max(0, limit - entry.count),
      resetSeconds: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)),
      limited: this.enforce && entry.count > limit
    }
  }
  clear(): void {
    this.windows.clear()
  }
}
