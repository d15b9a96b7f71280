/**
 * The refusal codes in the OpenAPI document: every error response's schema requires `code` and
 * lists codes of its own status only, and every code the server can send (the core's `Refusal`
 * table, which the error classes and the edge's refusals are typed by) is in the document, on an
 * error response of its status or, for what the edge answers before any route, in the `Refusal`
 * component. (OpenApiAnswers.test.ts holds the real answers to the same enums.)
 */
import { OpenApi } from "@effect/platform"
import { Refusal } from "@climate-grade/core"
import { describe, expect, it } from "vitest"
import { Api } from "../src/api/Api.js"

interface JsonSchema {
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly $ref?: string
  readonly required?: ReadonlyArray<string>
  readonly properties?: Record<string, { readonly enum?: ReadonlyArray<string> }>
}
interface Document {
  readonly paths: Record<
    string,
    Record<string, { readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: JsonSchema }> }> }>
  >
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

const document = OpenApi.fromApi(Api) as unknown as Document

/** The object schemas a response's schema stands for (union members, references followed). */
const members = (schema: JsonSchema): ReadonlyArray<JsonSchema> => {
  if (schema.$ref !== undefined) return members(document.components.schemas[schema.$ref.split("/").pop()!]!)
  if (schema.anyOf !== undefined) return schema.anyOf.flatMap(members)
  return [schema]
}

const errorResponses = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) =>
    Object.entries(operation.responses)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => ({ at: `${method.toUpperCase()} ${path} ${status}`, status: Number(status), response }))
  )
)

describe("refusal codes in the OpenAPI document", () => {
  it("every error response's body requires a code, of its own status, from the core's table", () => {
    expect(errorResponses.length).toBeGreaterThan(50)
    const wrong: Array<string> = []
    for (const { at, status, response } of errorResponses) {
      const schema = response.content?.["application/json"]?.schema
      if (schema === undefined) {
        wrong.push(`${at}: no JSON body`)
        continue
      }
      for (const member of members(schema)) {
        const codes = member.properties?.code?.enum ?? []
        if (!member.required?.includes("code") || codes.length === 0) wrong.push(`${at}: no code`)
        for (const code of codes) {
          if (!Refusal.isCode(code)) wrong.push(`${at}: ${code} is no refusal code`)
          else if (Refusal.CODES[code].status !== status) wrong.push(`${at}: ${code} is a ${Refusal.CODES[code].status}'s`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  it("every code the server can send is in the document", () => {
    const listed = new Map<number, Set<string>>()
    for (const { status, response } of errorResponses) {
      const schema = response.content?.["application/json"]?.schema
      for (const member of schema === undefined ? [] : members(schema)) {
        for (const code of member.properties?.code?.enum ?? []) listed.set(status, (listed.get(status) ?? new Set()).add(code))
      }
    }
    // What only the edge answers, before any route: a malformed or slow request, CONNECT, a client's connections past its cap.
    const edgeOnly = new Set<Refusal.Code>(["method-not-allowed", "request-timeout", "headers-too-large"])
    for (const code of Refusal.ALL) {
      if (edgeOnly.has(code)) continue
      expect(listed.get(Refusal.CODES[code].status), code).toContain(code)
    }
    const component = document.components.schemas.Refusal!
    expect(component.required).toEqual(["detail", "code"])
    expect(component.properties?.code?.enum).toEqual([...Refusal.ALL])
  })

  it("each code comes with one status, and the budget's and the waits' codes are the ones CONTRACT names", () => {
    for (const code of ["budget-spent", "client-share-spent", "cold-cells-busy", "rate-limited", "upstream-timeout"] as const) {
      expect(Refusal.isCode(code)).toBe(true)
      expect(Refusal.isWait(code)).toBe(code !== "upstream-timeout")
    }
    for (const code of Refusal.ALL) expect(code).toMatch(/^[a-z]+(-[a-z]+)*$/)
  })
})
