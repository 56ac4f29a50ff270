/**
 * docs/benchmarks.md is rewritten by every benchmark run (`writeSection`): what a run keeps of the file is its own
 * sections and the hand-written ones between measured markers. A hand-written section outside the markers would be
 * lost at the next run, so every heading of the file must come through a rewrite.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { readSections, withSection } from "./Report.js"

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "benchmarks.md")

const headings = (text: string) => text.split("\n").filter((line) => /^#{1,4} /.test(line))

describe("docs/benchmarks.md", () => {
  it("a benchmark's rewrite keeps every section of it, its own and the measured ones", () => {
    const text = fs.readFileSync(file, "utf8")
    const sections = readSections(text)
    expect(sections.length).toBeGreaterThan(0)
    // Each section written again as it is: the file comes through unchanged, heading for heading.
    for (const section of sections) expect(headings(withSection(text, section))).toEqual(headings(text))
  })

  it("a section written by hand outside the measured markers is what a rewrite would lose", () => {
    const text = fs.readFileSync(file, "utf8")
    const stray = `${text}\n## A hand-written note\n\nNo markers around it.\n`
    expect(headings(withSection(stray, readSections(stray)[0]!))).not.toContain("## A hand-written note")
  })
})
