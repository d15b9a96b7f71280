/**
 * The demo's inbox: a page listing the direct messages the fake chat bot received, newest first,
 * so a newcomer sees an alert arrive. Plain HTML that reloads itself every few seconds; served by
 * the demo on its own loopback port, not by the service.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type * as FakeChatBot from "@climate-grade/testing/FakeChatBot"
import * as Effect from "effect/Effect"

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** A message's text with its addresses as links. */
const linked = (content: string) =>
  content
    .split(/(https?:\/\/\S+)/)
    .map((part, i) => (i % 2 === 1 ? `<a href="${escapeHtml(part)}">${escapeHtml(part)}</a>` : escapeHtml(part)))
    .join("")

export const page = (bot: FakeChatBot.FakeChatBot, siteUrl: string): string => {
  const messages = [...bot.delivered].reverse()
  const items =
    messages.length === 0
      ? `<p class="empty">No message yet. Sign in on the site, watch a place, and alerts for it arrive here.</p>`
      : `<ol>${messages
          .map(
            (m) =>
              `<li><p class="meta">To <b>${escapeHtml(m.recipientId)}</b> · ${escapeHtml(new Date(m.at).toISOString().replace("T", " ").slice(0, 19))} UTC</p><p class="content">${linked(m.content)}</p></li>`
          )
          .join("")}</ol>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="3">
<title>Demo inbox (${messages.length}) — Climate grade</title>
<style>
body { margin: 0; font-family: system-ui, sans-serif; background: #f7f6f2; color: #1a1a1a; line-height: 1.45 }
main { max-width: 760px; margin: 0 auto; padding: 24px 16px }
h1 { font-size: 1.6rem; margin: 0 0 4px }
.lead { color: #55554f; margin: 0 0 20px }
ol { list-style: none; padding: 0; margin: 0 }
li { background: #fcfcfa; border: 1px solid #dcdcd5; border-radius: 10px; padding: 12px 16px; margin: 0 0 12px }
.meta { color: #55554f; font-size: 0.9rem; margin: 0 0 6px }
.content { margin: 0; overflow-wrap: anywhere }
.empty { background: #fcfcfa; border: 1px dashed #dcdcd5; border-radius: 10px; padding: 16px }
a { color: #1d4ed8 }
</style>
</head>
<body>
<main>
<h1>Demo inbox</h1>
<p class="lead">Direct messages the demo's chat bot received (${messages.length}). This page reloads itself every 3 seconds. <a href="${escapeHtml(siteUrl)}">Back to the site</a></p>
${items}
</main>
</body>
</html>
`
}

/** The inbox on `127.0.0.1:port` for the life of the scope. */
export const serve = (bot: FakeChatBot.FakeChatBot, siteUrl: string, port: number) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly close: () => void }, Error>((resume) => {
      const server = createServer((req, res) => {
        if (req.method !== "GET" && req.method !== "HEAD") {
          res.writeHead(405, { allow: "GET, HEAD" }).end()
          return
        }
        if ((req.url ?? "/").split("?")[0] !== "/") {
          res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: the inbox is at /\n")
          return
        }
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page(bot, siteUrl))
      })
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(port, "127.0.0.1", () => {
        const address = server.address() as AddressInfo
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${address.port}/`,
            close: () => {
              server.closeAllConnections()
              server.close()
            }
          })
        )
      })
    }),
    ({ close }) => Effect.sync(close)
  )
