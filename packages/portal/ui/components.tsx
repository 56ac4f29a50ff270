/**
 * The portal's shared building blocks: links that route on the client, labelled fields, buttons,
 * copy buttons, confirmation dialogs (native `<dialog>`, which keeps focus inside and closes on Escape),
 * error and status notes announced to screen readers, and the data-loading hook every page uses.
 */
import type { AnchorHTMLAttributes, ComponentChildren, InputHTMLAttributes } from "preact"
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks"
import { ApiError } from "./api.js"
import { navigate } from "./router.js"

export const Link = (props: AnchorHTMLAttributes<HTMLAnchorElement> & { readonly href: string }) => (
  <a
    {...props}
    onClick={(event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      navigate(props.href)
    }}
  />
)

export const message = (error: unknown) =>
  error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error)

/** Loads data for a page; `reload` runs the loader again (after a change). */
export function useLoad<A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>) {
  const [state, setState] = useState<
    { readonly data?: A; readonly error?: unknown; readonly loading: boolean }
  >({ loading: true })
  const generation = useRef(0)
  const run = useCallback(() => {
    const current = ++generation.current
    setState((previous) => ({ ...previous, loading: true }))
    load().then(
      (data) => current === generation.current && setState({ data, loading: false }),
      (error) => current === generation.current && setState({ error, loading: false })
    )
  }, deps)
  useEffect(run, [run])
  return { ...state, reload: run }
}

export const ErrorNote = (props: { readonly error: unknown }) =>
  props.error === undefined ? null : <p class="note error" role="alert">{message(props.error)}</p>

export const Loading = (props: { readonly what: string }) => (
  <p class="muted" aria-live="polite">Loading {props.what}…</p>
)

export const Field = (
  props: Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & {
    readonly label: string
    readonly hint?: string
  }
) => {
  const id = useId()
  const { hint, label, ...input } = props
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        {...(input as InputHTMLAttributes<HTMLInputElement>)}
        id={id}
        {...(hint === undefined ? {} : { "aria-describedby": `${id}-hint` })}
      />
      {hint === undefined ? null : <small id={`${id}-hint`} class="muted">{hint}</small>}
    </div>
  )
}

/** A button that copies `text`, and says so to screen readers. */
export const CopyButton = (props: { readonly text: string; readonly label?: string }) => {
  const [copied, setCopied] = useState<"" | "Copied" | "Copy failed">("")
  return (
    <span class="copy">
      <button
        type="button"
        class="secondary small"
        onClick={() =>
          navigator.clipboard.writeText(props.text).then(() => setCopied("Copied"), () => setCopied("Copy failed"))}
      >
        {props.label ?? "Copy"}
      </button>
      <span class="muted small" role="status">{copied}</span>
    </span>
  )
}

/** A value to copy: shown in full, selectable, with a copy button beside it. */
export const CopyValue = (props: { readonly label: string; readonly value: string }) => (
  <div class="copy-value">
    <span class="copy-label">{props.label}</span>
    <code>{props.value}</code>
    <CopyButton text={props.value} label={`Copy ${props.label.charAt(0).toLowerCase()}${props.label.slice(1)}`} />
  </div>
)

/** A modal dialog, open while rendered; Escape or the cancel button closes it. */
export const Dialog = (props: {
  readonly title: string
  readonly onClose: () => void
  readonly children: ComponentChildren
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (dialog !== null && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault()
        props.onClose()
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  )
}

/** Asks before a change that cannot be undone; runs `onConfirm` and shows its error, if any. */
export const Confirm = (props: {
  readonly title: string
  readonly confirmLabel: string
  readonly onConfirm: () => Promise<unknown>
  readonly onClose: () => void
  readonly children: ComponentChildren
  /** When set, the confirm button stays disabled until this exact text is typed. */
  readonly typeToConfirm?: string
}) => {
  const [typed, setTyped] = useState("")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(undefined)
  const ready = props.typeToConfirm === undefined || typed === props.typeToConfirm
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault()
          if (!ready || busy) return
          setBusy(true)
          props.onConfirm().then(props.onClose, (e) => {
            setError(e)
            setBusy(false)
          })
        }}
      >
        {props.children}
        {props.typeToConfirm === undefined ? null : (
          <Field
            label={`Type ${props.typeToConfirm} to confirm`}
            value={typed}
            autocomplete="off"
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
        )}
        <ErrorNote error={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose}>Cancel</button>
          <button type="submit" class="danger" disabled={!ready || busy}>{props.confirmLabel}</button>
        </div>
      </form>
    </Dialog>
  )
}

/** Earlier/next buttons over cursor pages; remembers the cursors behind so "Previous" works. */
export const usePager = () => {
  const [stack, setStack] = useState<ReadonlyArray<string | undefined>>([undefined])
  const cursor = stack[stack.length - 1]
  return {
    cursor,
    page: stack.length,
    reset: () => setStack([undefined]),
    controls: (nextCursor: string | null) => (
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          class="secondary small"
          disabled={stack.length <= 1}
          onClick={() => setStack(stack.slice(0, -1))}
        >
          Previous page
        </button>
        <span class="muted small">Page {stack.length}</span>
        <button
          type="button"
          class="secondary small"
          disabled={nextCursor === null}
          onClick={() => nextCursor !== null && setStack([...stack, nextCursor])}
        >
          Next page
        </button>
      </nav>
    )
  }
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })

export const Time = (props: { readonly at: string | null; readonly empty?: string }) =>
  props.at === null ?
    <span class="muted">{props.empty ?? "never"}</span> :
    <time dateTime={props.at} title={props.at}>{dateTime.format(new Date(props.at))}</time>

export const Badge = (
  props: { readonly tone?: "ok" | "warn" | "bad" | "info"; readonly children: ComponentChildren }
) => <span class={`badge ${props.tone ?? "info"}`}>{props.children}</span>

export const toneOf = (state: string): "ok" | "warn" | "bad" | "info" =>
  ["Active", "Idle", "Delivered", "configured"].includes(state)
    ? "ok"
    : ["Error", "Failed", "Disconnected", "revoked", "Inactive"].includes(state)
    ? "bad"
    : ["Reauthorize", "RateLimited", "Stopped", "Pending"].includes(state)
    ? "warn"
    : "info"

/** A table's frame: it scrolls sideways on a narrow screen, so it takes focus for keyboard scrolling. */
export const TableFrame = (props: { readonly label: string; readonly children: ComponentChildren }) => (
  <div class="table-wrap" tabIndex={0} role="region" aria-label={props.label}>
    {props.children}
  </div>
)
