/**
 * The service's front door alone, for `pnpm bench:http-instructions front-door`: the node server
 * with the response index holding one answer (`BENCH_URL`, `BENCH_ETAG`, valid for an hour, so
 * it holds however slowly valgrind runs), the access log in JSON through the process's batched
 * standard output, and the request metrics; no app behind it, no database. Counted beside a bare
 * server, it shows what the front door's own work costs an answer, apart from everything else a
 * whole service has in its process. Prints `PORT n` on standard error once listening.
 */
import type { AddressInfo } from "node:net"
import * as AccessLog from "@climate-grade/http/AccessLog"
import * as FrontDoor from "@climate-grade/http/FrontDoor"
import * as ResponseIndex from "@climate-grade/http/ResponseIndex"
import * as LogLines from "../../apps/server/src/LogLines.js"

const url = process.env.BENCH_URL!
const etag = process.env.BENCH_ETAG!
const index = ResponseIndex.make()
index.remember(url, { etag, validUntil: Date.now() + 3_600_000 })
const log = AccessLog.writer({ format: "json", instance: "front-door-alone", write: LogLines.stdoutLine() })
const server = FrontDoor.makeServer(
  { basePath: "", publicOriginHttps: false, responses: index },
  (_req, res) => {
    res.writeHead(404, { "content-type": "application/json" })
    res.end('{"detail":"Only the held answer is served here."}')
  },
  log
)
server.listen(0, "127.0.0.1", () => console.error(`PORT ${(server.address() as AddressInfo).port}`))
