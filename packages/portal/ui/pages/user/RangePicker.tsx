/**
 * The user page's range: the last 7, 14, 30 or 90 days, or a custom `from`/`to`, kept in the page's
 * address (`?days=30`, `?from=2026-01-01&to=2026-03-31`) so a reload or a shared link shows the same.
 * The server checks a custom range (at most 366 days, `from` not after `to`) and says what is wrong.
 */
import { useState } from "preact/hooks"
import type { OverviewRange } from "../../api.js"
import { navigate } from "../../router.js"

export const presetDays = [7, 14, 30, 90] as const
export const defaultDays = 14

/** The range the address asks for; none: the default 14 days. */
export const rangeOf = (search: string): OverviewRange => {
  const params = new URLSearchParams(search)
  const from = params.get("from") ?? undefined
  const to = params.get("to") ?? undefined
  const days = params.get("days") ?? undefined
  return from === undefined && to === undefined ? { days } : { from, to, days }
}

const go = (path: string, params: Record<string, string>) => {
  const search = new URLSearchParams(params).toString()
  navigate(search === "" ? path : `${path}?${search}`)
}

/** Why the server would refuse a custom range, or undefined when it is one it answers. */
export const rangeProblem = (from: string, to: string): string | undefined => {
  const start = Date.parse(`${from}T00:00:00Z`)
  const end = Date.parse(`${to}T00:00:00Z`)
  if (Number.isNaN(start) || Number.isNaN(end)) return "Choose both dates."
  if (start > end) return "The first day must not be after the last."
  if ((end - start) / 86_400_000 + 1 > 366) return "A range may cover at most 366 days."
  return undefined
}

export const RangePicker = (props: {
  readonly path: string
  readonly range: OverviewRange
  /** The range answered, for the custom fields' first values. */
  readonly shown: { readonly from: string; readonly to: string } | undefined
}) => {
  const custom = props.range.from !== undefined || props.range.to !== undefined
  const days = custom ? undefined : Number(props.range.days ?? defaultDays)
  const [from, setFrom] = useState(props.range.from ?? props.shown?.from ?? "")
  const [to, setTo] = useState(props.range.to ?? props.shown?.to ?? "")
  const [open, setOpen] = useState(custom)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  return (
    <div class="range-picker card">
      <div class="range-presets" role="group" aria-label="Range">
        {presetDays.map((n) => (
          <button
            key={n}
            type="button"
            class="secondary small"
            aria-pressed={days === n}
            onClick={() => go(props.path, n === defaultDays ? {} : { days: String(n) })}
          >
            {n} days
          </button>
        ))}
        <button
          type="button"
          class="secondary small"
          aria-pressed={custom}
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          Custom…
        </button>
      </div>
      {!open ? null : (
        <form
          class="range-custom"
          aria-label="Custom range"
          onSubmit={(event) => {
            event.preventDefault()
            // The server checks the same; a range it would refuse is not sent.
            const problem = rangeProblem(from, to)
            setProblem(problem)
            if (problem === undefined) go(props.path, { from, to })
          }}
        >
          <label>
            From <input type="date" required value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
          </label>
          <label>
            To <input type="date" required value={to} onInput={(e) => setTo(e.currentTarget.value)} />
          </label>
          <button type="submit" class="small">Show range</button>
          <span class="small muted">At most 366 days.</span>
          {problem === undefined ? null : <p role="alert" class="note error small">{problem}</p>}
        </form>
      )}
    </div>
  )
}
