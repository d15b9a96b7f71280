/**
 * Operator commands. `create-user` makes a password account (there is no public registration):
 *   printf '%s' "$PASSWORD" | pnpm user:create --email ops@example.org [--superuser]
 * The password is read from standard input, so it stays out of shell history and `ps`.
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { PasswordHasher, PasswordLogin, Users } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { servicesLayer } from "./App.js"
import { appConfig, describeConfigError } from "./AppConfig.js"

const usage = "usage: printf '%s' \"$PASSWORD\" | pnpm user:create --email ADDRESS [--superuser] [--unverified]"

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

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

const email = Either.getOrElse(PasswordLogin.newAccountEmail(values.email ?? fail(usage)), fail)
if (process.stdin.isTTY) fail(usage)
const password = Either.getOrElse(PasswordLogin.newAccountPassword(await readStdin()), fail)

const config = Effect.runSync(Effect.either(appConfig))
if (Either.isLeft(config)) fail(describeConfigError(config.left))

const program = Effect.gen(function* () {
  const users = yield* Users
  const hasher = yield* PasswordHasher
  const user = yield* users.create({
    email,
    hashedPassword: yield* hasher.hash(password),
    isActive: true,
    isSuperuser: values.superuser === true,
    isVerified: values.unverified !== true,
    oauthOnly: false
  })
  process.stdout.write(`created ${user.email} (${user.id})${user.isSuperuser ? " as superuser" : ""}\n`)
}).pipe(
  Effect.catchTag("EmailTaken", (e) => Effect.sync(() => fail(`an account with ${e.email} exists already`))),
  Effect.provide(servicesLayer(Either.getOrThrow(config)))
)

NodeRuntime.runMain(program, { disableErrorReporting: false })
