/**
 * The service's front door alone, for `pnpm bench:http front-door` and `pnpm
 * bench:http-instructions front-door`: the node server with the response index holding one answer
 * (`BENCH_URL`, `BENCH_ETAG`, valid for an hour, so it holds however slowly valgrind runs), the
 * access log in JSON through the process's batched standard output, and the request metrics; no
 * app behind it, no database. Counted beside a bare server, it shows what the front door's own
 * work costs an answer, apart from everything else a whole service has in its process. Prints
 * `PORT n` on standard error once listening.
 *
 * `BENCH_POLLUTE` (`streams`, `http`, `served`, `client` or `all`) first makes the process do some
 * of what a whole service does besides answering from the index, before it says its port:
 * `streams` pipes through compression, file, pass-through and plain writable streams, `http`
 * sends requests of its own to its own app (GETs, and POSTs with a body). Node's stream and HTTP
 * code then has seen other objects than the sockets of the held answers, as in the whole service.
 * `served` and `client` split `http` into its two sides: `served` has the same requests sent from
 * a worker thread (an isolate of its own), so this one runs only the server's side of them;
 * `client` sends them from here to a server in a worker thread, so this one runs only the client's.
 * The worker threads run this same file (`WorkerRole`), so their requests are the same code's.
 * `ACCESS_LOG=off` leaves the access line out, as it does in the service.
 */
import { createReadStream, createWriteStream, rmSync } from "node:fs"
import { createServer, type IncomingMessage, request } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough, Writable } from "node:stream"
import { finished } from "node:stream/promises"
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads"
import { createGunzip, createGzip } from "node:zlib"
import * as AccessLog from "@climate-grade/http/edge/AccessLog"
import * as FrontDoor from "@climate-grade/http/edge/FrontDoor"
import * as ResponseIndex from "@climate-grade/http/edge/ResponseIndex"
import * as LogLines from "../../apps/server/src/LogLines.js"

/** Reads `stream` to its end, its data dropped. */
const drained = (stream: NodeJS.ReadableStream) => finished(stream.resume())

const REQUESTS = 300

/** The `i`th request `http` sends to `port` (GETs, and POSTs with a body, in turn), read to its end. */
const sendOne = async (port: number, i: number) => {
  const response = await new Promise<IncomingMessage>((answered) =>
    request({ port, path: `/other/${i}`, method: i % 2 === 0 ? "POST" : "GET" }, answered).end(i % 2 === 0 ? "body" : undefined)
  )
  await drained(response)
}

/** What a worker thread running this file does: send the requests to `port`, or be the server they go to. */
type WorkerRole = { readonly role: "send"; readonly port: number } | { readonly role: "serve" }

/** A worker thread running this file in `role`, and its first message. */
const inWorker = <A>(role: WorkerRole) => {
  const worker = new Worker(new URL(import.meta.url), { workerData: role })
  return new Promise<{ readonly worker: Worker; readonly message: A }>((done, fail) => {
    worker.once("message", (message: A) => done({ worker, message }))
    worker.once("error", fail)
  })
}

const asWorker = async (role: WorkerRole) => {
  if (role.role === "send") {
    for (let i = 0; i < REQUESTS; i++) await sendOne(role.port, i)
    parentPort!.postMessage("sent")
    return
  }
  // Each request's body read, then answered.
  const server = createServer((req, res) =>
    req.resume().on("end", () => res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"none"}'))
  )
  server.listen(0, "127.0.0.1", () => parentPort!.postMessage((server.address() as AddressInfo).port))
}

const pollute = async (pollution: string, port: number) => {
  if (pollution === "") return
  if (pollution === "served") {
    const { worker } = await inWorker({ role: "send", port })
    await worker.terminate()
    return
  }
  const target = pollution === "client" ? await inWorker<number>({ role: "serve" }) : undefined
  const file = join(tmpdir(), `front-door-alone-${process.pid}.txt`)
  for (let i = 0; i < REQUESTS; i++) {
    if (pollution === "streams" || pollution === "all") {
      const gzip = createGzip()
      const gunzipped = gzip.pipe(createGunzip())
      gzip.end(Buffer.alloc(1000, i))
      await drained(gunzipped)
      await drained(new PassThrough().end("x"))
      await finished(createWriteStream(file).end("a"))
      await drained(createReadStream(file))
      await finished(new Writable({ write: (_chunk, _encoding, next) => next() }).end("a"))
    }
    if (pollution === "http" || pollution === "client" || pollution === "all") await sendOne(target?.message ?? port, i)
  }
  rmSync(file, { force: true })
  await target?.worker.terminate()
}

const frontDoor = () => {
  const url = process.env.BENCH_URL!
  const etag = process.env.BENCH_ETAG!
  const pollution = process.env.BENCH_POLLUTE ?? ""
  if (!["", "streams", "http", "served", "client", "all"].includes(pollution)) {
    console.error(`BENCH_POLLUTE is ${JSON.stringify(pollution)}: it takes streams, http, served, client or all`)
    process.exit(1)
  }
  const index = ResponseIndex.make()
  index.remember(url, { etag, validUntil: Date.now() + 3_600_000 })
  /** `ACCESS_LOG=off`, as for the service: no access line (what the line costs an answer is the difference). */
  const accessLog = process.env.ACCESS_LOG ?? "on"
  if (accessLog !== "on" && accessLog !== "off") {
    console.error(`ACCESS_LOG is ${JSON.stringify(accessLog)}: it takes on or off`)
    process.exit(1)
  }
  const log = AccessLog.writer({ format: accessLog === "off" ? "off" : "json", instance: "front-door-alone", write: LogLines.stdoutLine() })
  const server = FrontDoor.makeServer(
    { basePath: "", publicOriginHttps: false, responses: index },
    (_req, res) => {
      res.writeHead(404, { "content-type": "application/json" })
      res.end('{"detail":"Only the held answer is served here."}')
    },
    log
  )
  server.listen(0, "127.0.0.1", async () => {
    const { port } = server.address() as AddressInfo
    await pollute(pollution, port)
    console.error(`PORT ${port}`)
  })
}

if (isMainThread) frontDoor()
else void asWorker(workerData as WorkerRole)
