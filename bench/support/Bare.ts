/**
 * What bench:http and bench:http-instructions share: a raw HTTP GET (the bytes as sent), the
 * headers of one of our answers as a bare server should repeat them, and that bare server's script.
 */
import { request } from "node:http"

/** node:http, so a gzip body stays the bytes that were sent (fetch would decode it). */
export const fetchRaw = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, string>; body: Buffer }>((done, fail) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () =>
        done({
          status: res.statusCode ?? 0,
          headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
          body: Buffer.concat(chunks)
        })
      )
    })
    req.on("error", fail)
    req.end()
  })

/** An answer's headers for the bare server to send as they are (Node adds its own date and connection headers). */
export const headersAsSent = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !["date", "connection", "keep-alive", "transfer-encoding"].includes(k)))

/**
 * A bare node:http server's script (CommonJS, for `node -e` or a file): every request answered with
 * the same status, headers and body; it prints `PORT n` once listening and exits on SIGINT (so a
 * CPU profile is written).
 */
export const bareServerScript = (status: number, headers: Record<string, string>, body: Buffer) =>
  `const h=${JSON.stringify(headers)};const b=Buffer.from(${JSON.stringify(body.toString("base64"))},"base64");
   const s=require("http").createServer((q,r)=>{r.writeHead(${status},h);r.end(b)});
   process.on("SIGINT",()=>process.exit(0));s.listen(0,"127.0.0.1",()=>console.log("PORT "+s.address().port))`
