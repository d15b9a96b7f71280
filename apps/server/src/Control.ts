/**
 * The operator's channel to a running server that owns an embedded database: HTTP over a Unix
 * socket inside DATA_DIR (`control.sock`, mode 0600, so only the DATA_DIR's owner can use it;
 * nothing is exposed on the network). While a server owns the DATA_DIR no other process may
 * open it (DataDirLock), so `user:create` asks the server to create the account instead.
 *
 * Why not `@electric-sql/pglite-socket`: it hands a second client the server's one PGlite
 * connection, outside the one-permit semaphore that keeps a transaction's statements together
 * (PgliteClient), so the command's statements could land inside a request's transaction; and the
 * command would hash and validate on its own. Through the server, the account is created by the
 * same code (PasswordLogin.createAccount) over the same serialised connection.
 *
 * Two routes: `POST /users` with `{"email", "password", "superuser", "verified"}` → 201
 * `{"id", "email", "is_superuser"}`, 409 or 400 `{"detail"}`; and `GET /backup` → 200, the
 * database as a gzipped tar (Backup), taken between two transactions while the server holds its
 * one connection (`pnpm backup`).
 */
import { chmodSync, unlinkSync } from "node:fs"
import { createServer, request } from "node:http"
import { join, relative, resolve } from "node:path"
import { promisify } from "node:util"
import { gzip } from "node:zlib"
import { type PasswordHasher, PasswordLogin, type Users } from "@climate-grade/core"
import { PgliteClient } from "@climate-grade/postgres"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"

export const SOCKET = "control.sock"

/** Bodies are tiny; anything longer is not an account request. */
const MAX_BODY = 16 * 1024

/**
 * The socket's path, relative to the working directory when that is shorter: a Unix socket's
 * path is limited to ~107 bytes, which a deep absolute DATA_DIR can exceed.
 */
export const socketPath = (dataDir: string): string => {
  const absolute = join(resolve(dataDir), SOCKET)
  const rel = relative(process.cwd(), absolute)
  return rel.length < absolute.length ? (rel.startsWith(".") ? rel : `./${rel}`) : absolute
}

const json = (res: import("node:http").ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

/** Listens on DATA_DIR's control socket for the scope. The DATA_DIR lock is held: any socket file there is stale. */
export const layer = (dataDir: string): Layer.Layer<never, never, Users | PasswordHasher> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<Users | PasswordHasher>()
      // The embedded database's client, whose one connection the backup holds while it reads.
      const database = yield* Effect.serviceOption(PgliteClient.PgliteClient)
      const path = socketPath(dataDir)
      const server = createServer((req, res) => {
        if (req.method === "GET" && req.url === "/backup") {
          if (database._tag === "None") return json(res, 404, { detail: "No embedded database here" })
          const started = Date.now()
          const take = database.value.backup.pipe(
            Effect.flatMap((archive) =>
              Effect.map(
                Effect.promise(() => promisify(gzip)(Buffer.concat(archive.chunks as Array<Buffer>))),
                (bytes) => ({ bytes, files: archive.files })
              )
            ),
            Effect.tap(({ bytes, files }) =>
              Effect.logInfo(
                `operator command: backup of ${files} files (${bytes.length} bytes gzipped) taken over the control socket in ${Date.now() - started} ms`
              )
            ),
            Effect.tapErrorCause((cause) => Effect.logError("operator command: the backup failed", cause))
          )
          Runtime.runCallback(runtime)(take, {
            onExit: (exit) => {
              if (Exit.isFailure(exit)) return json(res, 500, { detail: "The backup could not be taken; see the server's log." })
              res.writeHead(200, { "content-type": "application/gzip", "content-length": String(exit.value.bytes.length) })
              res.end(exit.value.bytes)
            }
          })
          return
        }
        if (req.method !== "POST" || req.url !== "/users") return json(res, 404, { detail: "Not Found" })
        const chunks: Array<Buffer> = []
        let size = 0
        req.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size > MAX_BODY) {
            json(res, 413, { detail: "The request is too large." })
            req.destroy()
            return
          }
          chunks.push(chunk)
        })
        req.on("end", () => {
          let body: unknown
          try {
            body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          } catch {
            return json(res, 400, { detail: "The body is not JSON." })
          }
          const account = PasswordLogin.newAccount(typeof body === "object" && body !== null ? body : {})
          if (Either.isLeft(account)) return json(res, 400, { detail: account.left })
          const create = PasswordLogin.createAccount(account.right).pipe(
            Effect.tap((user) => Effect.logInfo(`operator command: created ${user.email} (${user.id}) over the control socket`))
          )
          Runtime.runCallback(runtime)(create, {
            onExit: (exit) => {
              if (Exit.isSuccess(exit)) {
                const user = exit.value
                return json(res, 201, { id: user.id, email: user.email, is_superuser: user.isSuperuser })
              }
              const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
              if (failure?._tag === "EmailTaken") return json(res, 409, { detail: `an account with ${failure.email} exists already` })
              json(res, 500, { detail: "The account could not be created; see the server's log." })
            }
          })
        })
      })
      yield* Effect.acquireRelease(
        Effect.async<void, never>((resume) => {
          try {
            unlinkSync(path)
          } catch {
            // No stale socket.
          }
          // Created owner-only from the start (umask), then made so explicitly.
          const umask = process.umask(0o177)
          server.once("error", (e) => {
            process.umask(umask)
            resume(Effect.die(e))
          })
          server.listen(path, () => {
            process.umask(umask)
            chmodSync(path, 0o600)
            resume(Effect.void)
          })
        }),
        () =>
          Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
            server.closeAllConnections()
          })
      )
    })
  )

export type Reply =
  | { readonly _tag: "Created"; readonly id: string; readonly email: string; readonly isSuperuser: boolean }
  | { readonly _tag: "Refused"; readonly detail: string }
  | { readonly _tag: "Unreachable"; readonly reason: string }

/** Sends an account request to the server listening in `dataDir`. */
export const createThroughServer = (dataDir: string, account: PasswordLogin.NewAccount): Promise<Reply> =>
  new Promise((done) => {
    const req = request(
      { socketPath: socketPath(dataDir), path: "/users", method: "POST", headers: { "content-type": "application/json" }, timeout: 30_000 },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          let body: { id?: unknown; email?: unknown; is_superuser?: unknown; detail?: unknown } = {}
          try {
            body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          } catch {
            // Reported below as a refusal without detail.
          }
          if (res.statusCode === 201 && typeof body.id === "string" && typeof body.email === "string") {
            done({ _tag: "Created", id: body.id, email: body.email, isSuperuser: body.is_superuser === true })
          } else {
            done({ _tag: "Refused", detail: typeof body.detail === "string" ? body.detail : `status ${res.statusCode}` })
          }
        })
      }
    )
    req.on("timeout", () => req.destroy(new Error("no answer within 30 s")))
    req.on("error", (e: NodeJS.ErrnoException) => done({ _tag: "Unreachable", reason: e.code ?? e.message }))
    req.end(
      JSON.stringify({ email: account.email, password: account.password, superuser: account.superuser, verified: account.verified })
    )
  })

export type BackupReply =
  | { readonly _tag: "Taken"; readonly bytes: Buffer }
  | { readonly _tag: "Refused"; readonly detail: string }
  | { readonly _tag: "Unreachable"; readonly reason: string }

/** Asks the server listening in `dataDir` for a backup of its database. */
export const backupThroughServer = (dataDir: string): Promise<BackupReply> =>
  new Promise((done) => {
    const req = request({ socketPath: socketPath(dataDir), path: "/backup", method: "GET", timeout: 300_000 }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const body = Buffer.concat(chunks)
        const length = Number(res.headers["content-length"])
        if (res.statusCode === 200 && body.length === length) return done({ _tag: "Taken", bytes: body })
        let detail = `status ${res.statusCode}`
        try {
          const parsed = JSON.parse(body.toString("utf8")) as { detail?: unknown }
          if (typeof parsed.detail === "string") detail = parsed.detail
        } catch {
          // Not JSON: a cut-short backup.
          if (res.statusCode === 200) detail = `the backup arrived cut short (${body.length} of ${length} bytes)`
        }
        done({ _tag: "Refused", detail })
      })
      res.on("error", (e) => done({ _tag: "Unreachable", reason: e.message }))
    })
    req.on("timeout", () => req.destroy(new Error("no answer within 300 s")))
    req.on("error", (e: NodeJS.ErrnoException) => done({ _tag: "Unreachable", reason: e.code ?? e.message }))
    req.end()
  })
