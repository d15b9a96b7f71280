/**
 * The API reference page written from the OpenAPI document: every operation and every named schema
 * is on it, each link leads to an anchor of the page, every description the document holds is
 * shown, and it stays a page (one small script, no outside address), a small fraction of the
 * 3.4 MB Scalar page it replaced.
 */
import { describe, expect, it } from "@effect/vitest"
import { Api } from "@climate-grade/http"
import * as ReferencePage from "@climate-grade/http/api/ReferencePage"
import { OpenApi } from "@effect/platform"

type Doc = {
  paths: Record<string, Record<string, { operationId: string; description?: string; parameters?: Array<{ name: string }> }>>
  components: { schemas: Record<string, unknown> }
}

const doc = OpenApi.fromApi(Api) as unknown as Doc
const html = ReferencePage.render(doc)
const escaped = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

describe("the API reference page", () => {
  it("lists every operation, with its method, path, description and parameters", () => {
    let operations = 0
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        operations++
        const id = `op-${op.operationId.replace(/[^A-Za-z0-9_-]/g, "-")}`
        const section = html.slice(html.indexOf(`<section class="operation" id="${id}"`))
        expect(section, `${method} ${path}`).toMatch(
          new RegExp(`^<section class="operation" id="${id}"[^>]*>\\s*<h3[^>]*><span class="method ${method}">${method.toUpperCase()}</span> <code>${escaped(path).replace(/[{}]/g, "\\$&")}</code>`)
        )
        const body = section.slice(0, section.indexOf("</section>"))
        for (const line of (op.description ?? "").split(/\n\s*\n/).filter((l) => l.trim() !== "")) {
          expect(body).toContain(escaped(line.trim()).replace(/`([^`]+)`/g, "<code>$1</code>"))
        }
        for (const parameter of op.parameters ?? []) expect(body).toContain(`<code>${escaped(parameter.name)}</code>`)
        expect(html).toContain(`href="#${id}"`)
      }
    }
    expect(operations).toBeGreaterThan(20)
  })

  it("shows every named schema, and every link within the page has its anchor", () => {
    for (const name of Object.keys(doc.components.schemas)) expect(html).toContain(`id="schema-${name}"`)
    const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]))
    const links = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1])
    expect(links.length).toBeGreaterThan(50)
    expect(links.filter((l) => !ids.has(l))).toEqual([])
  })

  it("is a page of its own: one small inline script, nothing from another address, and a small fraction of the 3.4 MB Scalar page", () => {
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.map((m) => m[1])).toEqual([""])
    expect(scripts[0]![2]!.length).toBeLessThan(1_000)
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i)
    expect(html).toContain('href="openapi.json"')
    expect(new TextEncoder().encode(html).length).toBeLessThan(400_000)
  })

  it("escapes what the document says: a description with markup is shown as text", () => {
    const page = ReferencePage.render({
      info: { title: "t <b>", version: "1" },
      paths: { "/x": { get: { operationId: "x.y", description: "a <script>alert(1)</script> & `code`", responses: {} } } }
    })
    expect(page).not.toContain("<script>alert")
    expect(page).toContain("a &lt;script&gt;alert(1)&lt;/script&gt; &amp; <code>code</code>")
    expect(page).toContain("<title>t &lt;b&gt; API reference</title>")
  })
})
