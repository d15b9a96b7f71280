/**
 * The API reference page, written as HTML from the OpenAPI document: every operation by tag, with
 * its parameters, request body and answers, and every named schema, linked. Written on the server,
 * with one script of a few lines (a filter over the operations): the platform's Scalar page inlined
 * ~3.4 MB of script, 909 KB gzip, to show the same ~100 KB document. It reads offline, in any
 * browser, with scripts or without, and prints.
 */
import { escapeHtml } from "../edge/Site.js"

type Json = { readonly [key: string]: unknown }

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)
const objectAt = (value: Json, key: string): Json => (isObject(value[key]) ? value[key] : {})
const arrayAt = (value: Json, key: string): ReadonlyArray<unknown> => (Array.isArray(value[key]) ? value[key] : [])
const stringAt = (value: Json, key: string): string | undefined => (typeof value[key] === "string" ? value[key] : undefined)

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const

/** An anchor from any name: letters, digits, `-` and `_` kept, the rest `-`. */
const anchor = (prefix: string, name: string) => `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`

const schemaName = (ref: string) => ref.replace(/^#\/components\/schemas\//, "")

/** Prose from a description: paragraphs on blank lines, `code` spans kept as code. */
const prose = (text: string | undefined): string =>
  text === undefined || text.trim() === ""
    ? ""
    : text
        .trim()
        .split(/\n\s*\n/)
        .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>`)
        .join("")

/** What a schema holds, in one line: a named schema's link, a type with its bounds, a union. */
const typeOf = (schema: Json): string => {
  const ref = stringAt(schema, "$ref")
  if (ref !== undefined) {
    const name = schemaName(ref)
    return `<a href="#${anchor("schema", name)}">${escapeHtml(name)}</a>`
  }
  const union = arrayAt(schema, "anyOf").length > 0 ? arrayAt(schema, "anyOf") : arrayAt(schema, "oneOf")
  if (union.length > 0) return union.filter(isObject).map(typeOf).join(" | ")
  const all = arrayAt(schema, "allOf").filter(isObject)
  if (all.length > 0) return all.map(typeOf).join(" &amp; ")
  const values = arrayAt(schema, "enum")
  if (values.length > 0) return values.map((v) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(" | ")
  if ("const" in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`
  const type = schema.type
  const types = Array.isArray(type) ? type.map(String) : typeof type === "string" ? [type] : []
  let text: string
  if (types.includes("array")) {
    const items = schema.items
    text = isObject(items) ? `array of ${typeOf(items)}` : "array"
  } else {
    text = types.length > 0 ? escapeHtml(types.join(" | ")) : "any"
  }
  const bounds = [
    typeof schema.format === "string" ? schema.format : undefined,
    typeof schema.minimum === "number" ? `≥ ${schema.minimum}` : undefined,
    typeof schema.exclusiveMinimum === "number" ? `> ${schema.exclusiveMinimum}` : undefined,
    typeof schema.maximum === "number" ? `≤ ${schema.maximum}` : undefined,
    typeof schema.exclusiveMaximum === "number" ? `< ${schema.exclusiveMaximum}` : undefined,
    typeof schema.minLength === "number" ? `length ≥ ${schema.minLength}` : undefined,
    typeof schema.maxLength === "number" ? `length ≤ ${schema.maxLength}` : undefined,
    typeof schema.minItems === "number" ? `≥ ${schema.minItems} items` : undefined,
    typeof schema.maxItems === "number" ? `≤ ${schema.maxItems} items` : undefined,
    typeof schema.pattern === "string" ? `matching <code>${escapeHtml(schema.pattern)}</code>` : undefined
  ].filter((b): b is string => b !== undefined)
  return bounds.length > 0 ? `${text} <span class="bounds">(${bounds.map((b) => (b.startsWith("matching") ? b : escapeHtml(b))).join(", ")})</span>` : text
}

/** An object's fields as a list (nested objects within), or the schema's type when it has none. */
const shape = (schema: Json, depth = 0): string => {
  const properties = objectAt(schema, "properties")
  const names = Object.keys(properties)
  if (names.length === 0 || depth > 6) {
    const items = schema.items
    if (isObject(items) && Object.keys(objectAt(items, "properties")).length > 0) {
      return `<p>array of objects:</p>${shape(items, depth + 1)}`
    }
    return `<p class="type">${typeOf(schema)}</p>`
  }
  const required = new Set(arrayAt(schema, "required").map(String))
  const rows = names.map((name) => {
    const field = isObject(properties[name]) ? properties[name] : {}
    const nested = Object.keys(objectAt(field, "properties")).length > 0
    const nestedItems = isObject(field.items) && Object.keys(objectAt(field.items, "properties")).length > 0
    const type = nested ? "object" : nestedItems ? "array of objects" : typeOf(field)
    const inner = nested ? shape(field, depth + 1) : nestedItems ? shape(field.items as Json, depth + 1) : ""
    return `<li><code class="name">${escapeHtml(name)}</code>${required.has(name) ? "" : ' <span class="optional">optional</span>'} <span class="type">${type}</span>${prose(stringAt(field, "description"))}${inner}</li>`
  })
  return `<ul class="fields">${rows.join("")}</ul>`
}

const content = (body: Json): string =>
  Object.entries(objectAt(body, "content"))
    .map(([mediaType, media]) => {
      const schema = isObject(media) ? objectAt(media, "schema") : {}
      return `<div class="media"><p class="media-type">${escapeHtml(mediaType)}</p>${Object.keys(schema).length > 0 ? shape(schema) : ""}</div>`
    })
    .join("")

const parametersTable = (parameters: ReadonlyArray<Json>): string =>
  parameters.length === 0
    ? ""
    : `<h4>Parameters</h4><table><thead><tr><th scope="col">name</th><th scope="col">in</th><th scope="col">type</th><th scope="col">meaning</th></tr></thead><tbody>${parameters
        .map((p) => {
          const name = stringAt(p, "name") ?? ""
          const description = stringAt(p, "description") ?? stringAt(objectAt(p, "schema"), "description")
          return `<tr><td><code>${escapeHtml(name)}</code>${p.required === true ? "" : ' <span class="optional">optional</span>'}</td><td>${escapeHtml(stringAt(p, "in") ?? "")}</td><td>${typeOf(objectAt(p, "schema"))}</td><td>${escapeHtml(description ?? "")}</td></tr>`
        })
        .join("")}</tbody></table>`

const operation = (method: string, path: string, op: Json): string => {
  const id = stringAt(op, "operationId") ?? `${method}-${path}`
  const summary = stringAt(op, "summary")
  const requestBody = objectAt(op, "requestBody")
  const responses = Object.entries(objectAt(op, "responses")).map(([status, response]) => {
    const r = isObject(response) ? response : {}
    return `<li><span class="status">${escapeHtml(status)}</span> ${escapeHtml(stringAt(r, "description") ?? "")}${content(r)}</li>`
  })
  const secured = arrayAt(op, "security").length > 0
  return `<section class="operation" id="${anchor("op", id)}" aria-labelledby="${anchor("op", id)}-title">
<h3 id="${anchor("op", id)}-title"><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
${summary === undefined ? "" : `<p class="summary">${escapeHtml(summary)}</p>`}${prose(stringAt(op, "description"))}${secured ? '<p class="secured">Needs a signed-in session.</p>' : ""}
${parametersTable(arrayAt(op, "parameters").filter(isObject))}
${Object.keys(requestBody).length > 0 ? `<h4>Request body${requestBody.required === true ? "" : ' <span class="optional">optional</span>'}</h4>${prose(stringAt(requestBody, "description"))}${content(requestBody)}` : ""}
<h4>Answers</h4><ul class="responses">${responses.join("")}</ul>
</section>`
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1a1a1a;--bg:#fff;--muted:#5c5c5c;--line:#d9d9d9;--code:#f3f3f3;--link:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#161616;--muted:#a8a8a8;--line:#3a3a3a;--code:#262626;--link:#8ab4f8}}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:60rem;margin:0 auto;padding:1rem}
a{color:var(--link)}code{font:0.9em ui-monospace,monospace;background:var(--code);padding:0 .2em;border-radius:3px}
h1{margin:.5rem 0}h2{margin-top:2.5rem;border-bottom:1px solid var(--line)}h3{margin:0 0 .5rem;font-size:1.1rem;word-break:break-all}h4{margin:1rem 0 .25rem;font-size:1rem}
nav ul{columns:22rem;padding-left:1.2rem}nav li{break-inside:avoid}nav a{text-decoration:none}
.operation{border:1px solid var(--line);border-radius:6px;padding:1rem;margin:1rem 0}
.method{display:inline-block;min-width:4.2em;text-align:center;font:700 .8rem ui-monospace,monospace;padding:.15em .4em;border-radius:3px;color:#fff;background:#4a4a4a}
.method.get{background:#1a6b3c}.method.post{background:#0b57d0}.method.delete{background:#a50e0e}.method.put,.method.patch{background:#8a5300}
.optional,.bounds,.media-type,.secured{color:var(--muted);font-size:.9em}
.status{font:700 .9em ui-monospace,monospace}
table{border-collapse:collapse;width:100%;font-size:.95em}th,td{text-align:left;vertical-align:top;border-bottom:1px solid var(--line);padding:.3em .5em}
.fields,.responses{padding-left:1.2rem}.fields .fields{border-left:2px solid var(--line)}
p{margin:.25rem 0}
`

/**
 * A filter over the operations, for the page's one script (inline, allowed by its hash): the field
 * is hidden until the script shows it, so without scripts the page is whole and has no dead control.
 */
const FILTER = `<p id="filter-row" hidden><label for="filter">Filter operations</label> <input id="filter" type="search" autocomplete="off" spellcheck="false"></p>
<script>
(() => {
  const field = document.getElementById("filter")
  document.getElementById("filter-row").hidden = false
  field.addEventListener("input", () => {
    const words = field.value.trim().toLowerCase()
    const hide = (node) => { node.hidden = words !== "" && !node.textContent.toLowerCase().includes(words) }
    document.querySelectorAll("nav li, section.operation[id^='op-']").forEach(hide)
    for (const tag of document.querySelectorAll("section.tag")) {
      tag.hidden = [...tag.querySelectorAll("section.operation")].every((op) => op.hidden)
    }
  })
})()
</script>`

/** The whole page for `document` (the OpenAPI document the server serves beside it). */
export const render = (document: unknown): string => {
  const doc = isObject(document) ? document : {}
  const info = objectAt(doc, "info")
  const title = stringAt(info, "title") ?? "API"
  const paths = objectAt(doc, "paths")
  const operations: Array<{ readonly tag: string; readonly method: string; readonly path: string; readonly op: Json }> = []
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue
    for (const method of METHODS) {
      const op = item[method]
      if (isObject(op)) operations.push({ tag: String(arrayAt(op, "tags")[0] ?? "other"), method, path, op })
    }
  }
  const declared = arrayAt(doc, "tags").filter(isObject)
  const tags = [...new Set([...declared.map((t) => String(t.name)), ...operations.map((o) => o.tag)])]
  const tagDescription = (tag: string) => stringAt(declared.find((t) => t.name === tag) ?? {}, "description")
  const schemas = Object.entries(objectAt(objectAt(doc, "components"), "schemas"))
  const opId = (o: (typeof operations)[number]) => anchor("op", stringAt(o.op, "operationId") ?? `${o.method}-${o.path}`)

  const contents = `<nav aria-label="Operations"><h2>Operations</h2>${FILTER}<ul>${operations
    .map((o) => `<li><a href="#${opId(o)}"><span class="method ${o.method}">${o.method.toUpperCase()}</span> <code>${escapeHtml(o.path)}</code></a></li>`)
    .join("")}</ul><p><a href="#schemas">Schemas</a> · <a href="openapi.json">the OpenAPI document (JSON)</a></p></nav>`
  const sections = tags
    .map((tag) => {
      const ofTag = operations.filter((o) => o.tag === tag)
      if (ofTag.length === 0) return ""
      return `<section class="tag" aria-labelledby="${anchor("tag", tag)}"><h2 id="${anchor("tag", tag)}">${escapeHtml(tag)}</h2>${prose(tagDescription(tag))}${ofTag
        .map((o) => operation(o.method, o.path, o.op))
        .join("\n")}</section>`
    })
    .join("\n")
  const schemaSection = `<section aria-labelledby="schemas"><h2 id="schemas">Schemas</h2>${schemas
    .map(([name, schema]) => {
      const s = isObject(schema) ? schema : {}
      return `<section class="operation" id="${anchor("schema", name)}" aria-label="${escapeHtml(name)}"><h3><code>${escapeHtml(name)}</code></h3>${prose(stringAt(s, "description"))}${shape(s)}</section>`
    })
    .join("\n")}</section>`

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} API reference</title>
<meta name="description" content="${escapeHtml(stringAt(info, "description") ?? title)}">
<style>${STYLE}</style>
</head>
<body>
<main id="api-reference">
<h1>${escapeHtml(title)} API reference <span class="bounds">version ${escapeHtml(stringAt(info, "version") ?? "")}</span></h1>
${prose(stringAt(info, "description"))}
${contents}
${sections}
${schemaSection}
</main>
</body>
</html>
`
}
