/** What `/proc` tells of this machine's processes and threads (Linux). */
import * as fs from "node:fs"

/** CPU seconds (user + system) a process used so far, from `/proc/<pid>/stat`; undefined when unreadable. */
export const cpuSeconds = (pid: number | undefined): number | undefined => statCpuSeconds(`/proc/${pid}/stat`)

/** CPU seconds (user + system) one of this process's threads used so far, from `/proc/self/task/<tid>/stat`. */
export const threadCpuSeconds = (tid: number): number | undefined => statCpuSeconds(`/proc/self/task/${tid}/stat`)

const statCpuSeconds = (statFile: string): number | undefined => {
  try {
    const stat = fs.readFileSync(statFile, "utf8")
    // After the command name (in parentheses, and it may hold spaces), utime and stime are the 12th and 13th fields.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? ticks / 100 : undefined
  } catch {
    return undefined
  }
}

/** Whether `pid` is a PostgreSQL process of this machine. */
export const isPostgres = (pid: number): boolean => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres"
  } catch {
    return false
  }
}
