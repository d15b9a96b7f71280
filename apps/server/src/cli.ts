/**
 * Operator commands. `create-user` makes a password account (there is no public registration):
 *   printf '%s' "$PASSWORD" | pnpm user:create --email ops@example.org [--superuser]
 * The password is read from standard input, so it stays out of shell history and `ps`.
 *
 * On the embedded database, a running server owns DATA_DIR and no other process may open it
 * (DataDirLock): the account is then created by that server, through its control socket.
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { PasswordLogin } from "@climate-grade/core"
import { DataDirLock } from "@climate-grade/postgres"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { servicesLayer } from "./App.js"
import { appConfig, describeConfigError } from "./AppConfig.js"
import * as Control from "./Control.js"
import { describeStartupFailure } from "./Startup.js"

const usage = "usage: printf '%s' \"$PASSWORD\" | pnpm user:create --email ADDRESS [--superuser] [--unverified]"

/** Exit 2 for a wrong invocation, 1 when the account could not be made. */
const fail = (message: string, code: 1 | 2 = 2): never => {
  process.stderr.write(`${message}\n`)
  process.exit(code)
}

/** The line the command prints on success. */
const createdLine = (user: { readonly email: string; readonly id: string; readonly isSuperuser: boolean }) =>
  `created ${user.email} (${user.id})${user.isSuperuser ? " as superuser" : ""}`

const readStdin = async (): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "")
}

const { values } = parseArgs({
  options: {
    email: { type: "string" },
    superuser: { type: "boolean", default: false },
    unverified: { type: "boolean", default: false }
  },
  allowPositionals: true
})

const email = values.email ?? fail(usage)
// The address is checked before standard input is read, so a wrong one fails at once.
const checkedEmail = PasswordLogin.newAccountEmail(email)
if (Either.isLeft(checkedEmail)) fail(checkedEmail.left)
if (process.stdin.isTTY) fail(usage)
const validated = PasswordLogin.newAccount({
  email,
  password: await readStdin(),
  superuser: values.superuser === true,
  verified: values.unverified !== true
})
const account = Either.isLeft(validated) ? fail(validated.left) : validated.right

const config = Effect.runSync(Effect.either(appConfig))
if (Either.isLeft(config)) fail(describeConfigError(config.left))
const settings = Either.getOrThrow(config)

const database = settings.database
const owner = database._tag === "Embedded" ? DataDirLock.owner(database.dataDir) : Option.none()

if (database._tag === "Embedded" && Option.isSome(owner)) {
  const reply = await Control.createThroughServer(database.dataDir, account)
  switch (reply._tag) {
    case "Created":
      process.stdout.write(`${createdLine(reply)} through the running server (pid ${owner.value})\n`)
      process.exit(0)
      break
    case "Refused":
      fail(reply.detail, 1)
      break
    case "Unreachable":
      fail(
        `DATA_DIR ${database.dataDir} is in use by process ${owner.value}, which does not answer on ${Control.socketPath(database.dataDir)} (${reply.reason}): stop it, then run this again`,
        1
      )
  }
} else {
  const program = Effect.gen(function* () {
    const user = yield* PasswordLogin.createAccount(account)
    process.stdout.write(`${createdLine(user)}\n`)
  }).pipe(
    Effect.catchTag("EmailTaken", (e) => Effect.sync(() => fail(`an account with ${e.email} exists already`, 1))),
    Effect.provide(servicesLayer(settings)),
    // A server that took DATA_DIR since the check above, an unreachable database: one line.
    Effect.catchAllCause((cause) => Effect.sync(() => fail(describeStartupFailure(cause), 1)))
  )
  NodeRuntime.runMain(program, { disableErrorReporting: false })
}
