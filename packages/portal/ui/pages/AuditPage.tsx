/**
 * The audit log: who did what, when, newest first, paged.
 */
import { useEffect } from "preact/hooks"
import { api } from "../api.js"
import { ErrorNote, Loading, TableFrame, Time, useLoad, usePager } from "../components.js"

const describe = (detail: Record<string, unknown>) => {
  const entries = Object.entries(detail)
  return entries.length === 0 ? "" : entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ")
}

/** An event without an operator: made with the CLI (by the OS user it names), or an anonymous attempt. */
const cliOrAnonymous = (detail: Record<string, unknown>) =>
  detail.via !== "cli" ? "anonymous" : typeof detail.osUser === "string" ? `CLI (${detail.osUser})` : "CLI"

export const AuditPage = () => {
  const pager = usePager()
  const events = useLoad(() => api.audit(pager.cursor), [pager.cursor])
  useEffect(() => void (document.title = "Audit log · PulseBridge admin"), [])
  return (
    <section>
      <h1>Audit log</h1>
      <ErrorNote error={events.error} />
      {events.data === undefined ? (events.loading ? <Loading what="the audit log" /> : null) : (
        <>
          {events.data.data.length === 0 ?
            <p class="muted">Nothing recorded yet.</p> :
            (
              <TableFrame label="Audit events">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Who</th>
                      <th scope="col">What</th>
                      <th scope="col">Target</th>
                      <th scope="col">Detail</th>
                      <th scope="col">From</th>
                    </tr>
                  </thead>
                  <tbody>
                    {events.data.data.map((event) => (
                      <tr key={event.id}>
                        <td>
                          <Time at={event.at} />
                        </td>
                        <td>{event.operatorEmail ?? <span class="muted">{cliOrAnonymous(event.detail)}</span>}</td>
                        <td>
                          <code class="small nowrap">{event.action}</code>
                        </td>
                        <td class="small">
                          {event.targetType === null ? "" : `${event.targetType} `}
                          {event.targetId === null ? null : (
                            <code title={event.targetId}>
                              {event.targetId.length > 12 ? `${event.targetId.slice(0, 8)}…` : event.targetId}
                            </code>
                          )}
                        </td>
                        <td class="small detail">{describe(event.detail)}</td>
                        <td class="small">{event.address ?? ""}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableFrame>
            )}
          {pager.controls(events.data.nextCursor)}
        </>
      )}
    </section>
  )
}
