/**
 * Time-series charts on uPlot (canvas; a year of 5-minute glucose readings, about 105,000 points, draws
 * in milliseconds). One component for the user page's charts: daily bars (steps, load, sleep) and lines
 * (glucose, HRV, weight), each with one series per provider, a target band (glucose) and marks at given
 * instants (journal meals). The chart follows its container's width.
 *
 * Series are told apart without colour: bars are solid, hatched or dotted, lines solid, dashed or dotted,
 * and the legend beside the chart draws the same swatch with the provider's name and its values (mean and
 * latest), shown without hovering. Hovering the chart shows the point's values of every series. A canvas
 * says nothing to a screen reader, so each chart carries a text summary of its data.
 */
import { useEffect, useId, useRef, useState } from "preact/hooks"
import uPlot from "uplot"
import "uplot/dist/uPlot.min.css"

export interface Mark {
  /** Seconds since the epoch. */
  readonly at: number
  readonly label: string
}

export interface Series {
  /** The provider's name. */
  readonly label: string
  /** One value (or null) per `x`. */
  readonly values: ReadonlyArray<number | null>
  readonly color: string
  /** What the legend says instead of the mean and latest value (e.g. glucose's time in range). */
  readonly note?: string
}

export interface Band {
  readonly low: number
  readonly high: number
  readonly label: string
}

export interface ChartProps {
  readonly title: string
  /** Text for screen readers: what the chart shows, in numbers. */
  readonly summary: string
  readonly kind: "bars" | "line"
  /** Seconds since the epoch, ascending: a day's noon for daily values, else the instant. */
  readonly x: ReadonlyArray<number>
  /** Whether `x` are days (bars, daily lines) or instants (glucose, weighings). */
  readonly time: "day" | "instant"
  readonly series: ReadonlyArray<Series>
  readonly unit: string
  /** Decimals of the values shown (0 unless said). */
  readonly digits?: number
  readonly band?: Band | undefined
  readonly marks?: ReadonlyArray<Mark>
  readonly height?: number
}

const markColor = "#b45309"
const bandColor = "rgba(5, 150, 105, 0.12)"
const bandEdge = "#047857"

/** Line dashes by the series' place in its chart: solid, dashed, dotted, dash-dot. */
export const dashes: ReadonlyArray<ReadonlyArray<number>> = [[], [8, 4], [2, 3], [8, 3, 2, 3]]
/** Bar fills by the series' place in its chart. */
export const fills = ["solid", "hatched", "dotted", "cross-hatched"] as const

const styleIndex = (i: number) => i % fills.length

/** A canvas pattern of the colour: diagonal hatching, dots or cross-hatching on a pale ground. */
const patternOf = (
  ctx: CanvasRenderingContext2D,
  color: string,
  fill: typeof fills[number]
): string | CanvasPattern => {
  if (fill === "solid") return color
  const size = Math.round(8 * devicePixelRatio)
  const tile = document.createElement("canvas")
  tile.width = size
  tile.height = size
  const t = tile.getContext("2d")!
  t.fillStyle = "#ffffff"
  t.fillRect(0, 0, size, size)
  t.strokeStyle = color
  t.fillStyle = color
  t.lineWidth = 2 * devicePixelRatio
  if (fill === "dotted") {
    t.beginPath()
    t.arc(size / 2, size / 2, 1.8 * devicePixelRatio, 0, 2 * Math.PI)
    t.fill()
  } else {
    t.beginPath()
    t.moveTo(0, size)
    t.lineTo(size, 0)
    t.moveTo(-size / 2, size / 2)
    t.lineTo(size / 2, -size / 2)
    t.moveTo(size / 2, size * 1.5)
    t.lineTo(size * 1.5, size / 2)
    if (fill === "cross-hatched") {
      t.moveTo(0, 0)
      t.lineTo(size, size)
    }
    t.stroke()
  }
  return ctx.createPattern(tile, "repeat") ?? color
}

/** Grouped bars: each day's bars side by side, one per series, with the series' fill and an outline. */
const barsPlugin = (series: ReadonlyArray<Series>): uPlot.Plugin => ({
  hooks: {
    draw: [(u) => {
      const { ctx } = u
      const xs = u.data[0]
      const n = series.length
      if (xs.length === 0 || n === 0) return
      const day = Math.abs(u.valToPos(xs[0]! + 86_400, "x", true) - u.valToPos(xs[0]!, "x", true))
      const group = Math.min(day * 0.8, 40 * n * devicePixelRatio)
      const width = group / n
      const zero = u.valToPos(0, "y", true)
      ctx.save()
      ctx.beginPath()
      ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height)
      ctx.clip()
      ctx.lineWidth = Math.max(1, devicePixelRatio)
      series.forEach((s, i) => {
        ctx.fillStyle = patternOf(ctx, s.color, fills[styleIndex(i)]!)
        ctx.strokeStyle = s.color
        const values = u.data[i + 1]!
        for (let j = 0; j < xs.length; j++) {
          const v = values[j]
          if (v === null || v === undefined) continue
          const left = u.valToPos(xs[j]!, "x", true) - group / 2 + i * width
          const top = u.valToPos(v, "y", true)
          ctx.fillRect(left, top, width, zero - top)
          if (width > 3 * devicePixelRatio) ctx.strokeRect(left, top, width, zero - top)
        }
      })
      ctx.restore()
    }]
  }
})

/** The target band, under the series, with its edges dashed. */
const bandPlugin = (band: Band): uPlot.Plugin => ({
  hooks: {
    drawAxes: [(u) => {
      const { ctx } = u
      const top = u.valToPos(band.high, "y", true)
      const bottom = u.valToPos(band.low, "y", true)
      ctx.save()
      ctx.fillStyle = bandColor
      ctx.fillRect(u.bbox.left, top, u.bbox.width, bottom - top)
      ctx.strokeStyle = bandEdge
      ctx.lineWidth = Math.max(1, devicePixelRatio)
      ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio])
      for (const y of [top, bottom]) {
        ctx.beginPath()
        ctx.moveTo(u.bbox.left, y)
        ctx.lineTo(u.bbox.left + u.bbox.width, y)
        ctx.stroke()
      }
      ctx.restore()
    }]
  }
})

/** Draws a dashed line and a dot at each mark, over the series. */
const marksPlugin = (marks: ReadonlyArray<Mark>): uPlot.Plugin => ({
  hooks: {
    draw: [(u) => {
      const { ctx } = u
      const { height, top } = u.bbox
      ctx.save()
      ctx.strokeStyle = markColor
      ctx.fillStyle = markColor
      ctx.lineWidth = Math.max(1, devicePixelRatio)
      ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio])
      for (const mark of marks) {
        const x = Math.round(u.valToPos(mark.at, "x", true))
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue
        ctx.beginPath()
        ctx.moveTo(x, top)
        ctx.lineTo(x, top + height)
        ctx.stroke()
        ctx.beginPath()
        ctx.arc(x, top + 5 * devicePixelRatio, 4 * devicePixelRatio, 0, 2 * Math.PI)
        ctx.fill()
      }
      ctx.restore()
    }]
  }
})

const present = (values: ReadonlyArray<number | null>) => values.filter((v): v is number => v !== null)

const yRange = (props: ChartProps) => (_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax => {
  const hi = max ?? 1
  if (props.kind === "bars") return [0, hi > 0 ? hi * 1.1 : 1]
  const lo = min ?? 0
  const low = props.band === undefined ? lo : Math.min(lo, props.band.low)
  const high = props.band === undefined ? hi : Math.max(hi, props.band.high)
  const pad = Math.max((high - low) * 0.08, 1)
  return [Math.max(0, low - pad), high + pad]
}

const options = (props: ChartProps, width: number, onHover: (idx: number | null) => void): uPlot.Options => ({
  width,
  height: props.height ?? 220,
  legend: { show: false },
  cursor: { drag: { x: false, y: false } },
  scales: {
    // Half a day of room on each side of daily values, so the first and last bars are whole.
    x: props.time === "day" ? { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] } : { time: true },
    y: { range: yRange(props) }
  },
  axes: [
    { stroke: "#374151", grid: { stroke: "#e5e7eb" }, ticks: { stroke: "#d1d5db" } },
    {
      stroke: "#374151",
      grid: { stroke: "#e5e7eb" },
      ticks: { stroke: "#d1d5db" },
      size: 56,
      values: (_u, splits) => splits.map((v) => v.toLocaleString())
    }
  ],
  series: [
    {},
    ...props.series.map((s, i): uPlot.Series => ({
      label: s.label,
      stroke: s.color,
      ...(props.kind === "bars"
        ? { paths: () => null, points: { show: false } }
        : {
          width: 2,
          dash: [...dashes[styleIndex(i)]!],
          // Daily values and weighings are few: each is a dot, and the line spans the days without one.
          spanGaps: props.time === "day" || present(s.values).length < 400,
          points: { show: present(s.values).length <= 120, size: 6, fill: s.color }
        })
    }))
  ],
  hooks: { setCursor: [(u) => onHover(u.cursor.idx ?? null)] },
  plugins: [
    ...(props.band === undefined ? [] : [bandPlugin(props.band)]),
    ...(props.kind === "bars" ? [barsPlugin(props.series)] : []),
    ...(props.marks === undefined || props.marks.length === 0 ? [] : [marksPlugin(props.marks)])
  ]
})

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" })
const instantFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })

export const formatValue = (value: number, digits = 0) =>
  value.toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** The legend's swatch: the series' fill (bars) or dash (lines), drawn as on the canvas. */
const Swatch = (props: { readonly kind: "bars" | "line"; readonly color: string; readonly index: number }) => {
  const fill = fills[styleIndex(props.index)]!
  const id = `swatch${useId()}`
  return (
    <svg class="swatch" width="28" height="14" viewBox="0 0 28 14" aria-hidden="true">
      {props.kind === "line"
        ? (
          <line
            x1="1"
            y1="7"
            x2="27"
            y2="7"
            stroke={props.color}
            stroke-width="3"
            stroke-dasharray={dashes[styleIndex(props.index)]!.join(" ") || undefined}
          />
        )
        : (
          <>
            <defs>
              <pattern id={id} width="6" height="6" patternUnits="userSpaceOnUse">
                <rect width="6" height="6" fill="#ffffff" />
                {fill === "dotted"
                  ? <circle cx="3" cy="3" r="1.4" fill={props.color} />
                  : (
                    <path
                      d={fill === "cross-hatched" ? "M0 6L6 0M0 0L6 6" : "M0 6L6 0M-3 3L3 -3M3 9L9 3"}
                      stroke={props.color}
                      stroke-width="1.5"
                    />
                  )}
              </pattern>
            </defs>
            <rect
              x="1"
              y="1"
              width="26"
              height="12"
              fill={fill === "solid" ? props.color : `url(#${id})`}
              stroke={props.color}
            />
          </>
        )}
    </svg>
  )
}

/** Each series with its name and values, always shown; while the chart is hovered, the values of that point. */
const Legend = (props: { readonly chart: ChartProps; readonly hovered: number | null }) => {
  const { chart, hovered } = props
  const digits = chart.digits ?? 0
  const when = (x: number) => (chart.time === "day" ? dayFormat : instantFormat).format(new Date(x * 1000))
  const valueOf = (v: number | null | undefined) =>
    v === null || v === undefined ? "no value" : `${formatValue(v, digits)} ${chart.unit}`
  const summaryOf = (s: Series) => {
    const values = present(s.values)
    if (values.length === 0) return "no data"
    if (s.note !== undefined) return s.note
    let last = s.values.length - 1
    while (s.values[last] === null) last--
    const mean = values.reduce((a, b) => a + b, 0) / values.length
    return `mean ${valueOf(mean)} · latest ${formatValue(s.values[last]!, digits)} (${when(chart.x[last]!)})`
  }
  return (
    <div class="chart-legend">
      <ul aria-label={`${chart.title}: series`}>
        {chart.series.map((s, i) => (
          <li key={s.label}>
            <Swatch kind={chart.kind} color={s.color} index={i} />
            <strong>{s.label}</strong> <span class="legend-values">{summaryOf(s)}</span>
          </li>
        ))}
        {chart.band === undefined ? null : (
          <li>
            <svg class="swatch" width="28" height="14" viewBox="0 0 28 14" aria-hidden="true">
              <rect x="1" y="1" width="26" height="12" fill={bandColor} stroke={bandEdge} stroke-dasharray="4 2" />
            </svg>
            {chart.band.label}
          </li>
        )}
      </ul>
      <p class="chart-readout small">
        {hovered === null || chart.x[hovered] === undefined
          ? <span class="muted">Point at the chart for a {chart.time === "day" ? "day's" : "time's"} values.</span>
          : (
            <>
              <strong>{when(chart.x[hovered]!)}:</strong>{" "}
              {chart.series.map((s) => `${s.label} ${valueOf(s.values[hovered])}`).join(" · ")}
            </>
          )}
      </p>
    </div>
  )
}

export const Chart = (props: ChartProps) => {
  const container = useRef<HTMLDivElement>(null)
  const [hovered, setHovered] = useState<number | null>(null)
  const points = props.series.reduce((sum, s) => sum + present(s.values).length, 0)
  useEffect(() => {
    const element = container.current
    if (element === null) return
    const data: uPlot.AlignedData = [Float64Array.from(props.x), ...props.series.map((s) => s.values.map((v) => v))]
    const plot = new uPlot(options(props, Math.max(element.clientWidth, 240), setHovered), data, element)
    const observer = new ResizeObserver(() => {
      const width = Math.max(element.clientWidth, 240)
      if (width !== plot.width) plot.setSize({ width, height: props.height ?? 220 })
    })
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
      setHovered(null)
    }
  }, [props.x, props.series, props.marks, props.kind, props.band])
  return (
    <figure class="chart" data-points={points}>
      <figcaption>
        {props.title} <span class="muted small">({props.unit})</span>
      </figcaption>
      {points === 0 ? <p class="muted">No data in this period.</p> : (
        <>
          <Legend chart={props} hovered={hovered} />
          <div ref={container} class="chart-canvas" aria-hidden="true" />
        </>
      )}
      <p class="sr-only">{props.summary}</p>
    </figure>
  )
}
