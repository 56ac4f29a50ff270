/**
 * Time-series charts on uPlot (canvas; a year of 5-minute glucose readings, about 105,000 points, draws
 * in milliseconds). One component for the user page's charts: daily bars (steps, load) and a line
 * (glucose) with marks at given instants (journal meals). The chart follows its container's width.
 * A canvas says nothing to a screen reader, so each chart carries a text summary of its data.
 */
import { useEffect, useRef } from "preact/hooks"
import uPlot from "uplot"
import "uplot/dist/uPlot.min.css"

export interface Mark {
  /** Seconds since the epoch. */
  readonly at: number
  readonly label: string
}

export interface ChartProps {
  readonly title: string
  /** Text for screen readers: what the chart shows, in numbers. */
  readonly summary: string
  readonly kind: "bars" | "line"
  /** Seconds since the epoch, ascending. */
  readonly x: ReadonlyArray<number>
  readonly y: ReadonlyArray<number | null>
  readonly unit: string
  readonly color: string
  readonly marks?: ReadonlyArray<Mark>
  readonly height?: number
}

const markColor = "#b45309"

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

const options = (props: ChartProps, width: number): uPlot.Options => ({
  width,
  height: props.height ?? 220,
  legend: { show: true, live: true },
  cursor: { drag: { x: false, y: false } },
  scales: props.kind === "bars"
    ? {
      // Half a day of room on each side, so the first and last bars are whole, and bars rise from zero.
      x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] }
    }
    : { x: { time: true } },
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
    props.kind === "bars"
      ? {
        label: `${props.title} (${props.unit})`,
        stroke: props.color,
        fill: `${props.color}cc`,
        paths: uPlot.paths.bars!({ size: [0.7, 48], align: 0 }),
        points: { show: false }
      }
      : {
        label: `${props.title} (${props.unit})`,
        stroke: props.color,
        width: 1.5,
        spanGaps: false,
        points: { show: false }
      }
  ],
  plugins: props.marks === undefined || props.marks.length === 0 ? [] : [marksPlugin(props.marks)]
})

export const Chart = (props: ChartProps) => {
  const container = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = container.current
    if (element === null) return
    const data: uPlot.AlignedData = [Float64Array.from(props.x), props.y.map((v) => v)]
    const plot = new uPlot(options(props, Math.max(element.clientWidth, 280)), data, element)
    const observer = new ResizeObserver(() => {
      const width = Math.max(element.clientWidth, 280)
      if (width !== plot.width) plot.setSize({ width, height: props.height ?? 220 })
    })
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [props.x, props.y, props.marks, props.kind, props.color])
  const points = props.y.filter((v) => v !== null).length
  return (
    <figure class="chart" data-points={points}>
      <figcaption>{props.title}</figcaption>
      {points === 0
        ? <p class="muted">No data in this period.</p>
        : <div ref={container} class="chart-canvas" aria-hidden="true" />}
      <p class="sr-only">{props.summary}</p>
    </figure>
  )
}
