/**
 * The account page, where sign-in redirects land: the outcome in words, sign-in for a
 * visitor, and for a signed-in user the linked identities, the direct-message switch, sign-out, and
 * leaving (YourData.tsx: the data as a file, and deleting the account).
 * Each section is its own component; the alerts' watched places and last alerts are in Watches.tsx.
 * Reached from a place ("Sign in to watch this place"), it offers the way back there (ReturnLink.ts).
 */
import { useEffect, useState } from "preact/hooks"
import { defaultUnits } from "../address.js"
import { api, getJson, goSignIn } from "../api.js"
import { plainDetail, waitWords } from "../refusal.js"
import { forgetStoredPages } from "../serviceWorker.js"
import { forgetPersonal, rememberSignedIn, storedUnits } from "../storage.js"
import { outcomeMessage, outcomeOf } from "./outcome.js"
import { returnOf } from "./ReturnLink.js"
import { Watches } from "./Watches.js"
import { YourData } from "./YourData.js"

/** The units the main page shows in this browser: the one picked, else the browser's default. */
const unitsInUse = () => storedUnits() ?? defaultUnits(navigator.languages ?? [navigator.language])

export interface Provider {
  readonly name: string
  readonly label: string
  readonly enabled: boolean
}

export interface Me {
  readonly id: string
  readonly email: string
  readonly oauth_only: boolean
  readonly chat_id: string | null
  readonly chat_dm: boolean
  readonly links: ReadonlyArray<{ readonly provider: string; readonly email: string | null }>
}

type Session = { readonly tag: "checking" } | { readonly tag: "visitor" } | { readonly tag: "user"; readonly me: Me } | { readonly tag: "failed" }

const labelOf = (providers: ReadonlyArray<Provider> | null, name: string) =>
  providers?.find((p) => p.name === name)?.label ?? (name === "chat" ? "Chat" : name === "idp" ? "Identity provider" : name)

const post = (path: string, body?: unknown) =>
  getJson<unknown>(path, {
    method: "POST",
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  })

/**
 * The outcome of the sign-in or link that led here. Its words name the provider, whose name comes
 * with the providers (`oauth/config`): until they are known the message keeps its place but is
 * not shown (`pending`), so it neither names a provider wrongly and then changes, nor moves the
 * page when it appears. A failed request for the providers shows it with a generic name.
 */
export const Outcome = ({ providers }: { providers: ReadonlyArray<Provider> | null }) => {
  const outcome = outcomeOf(location.search)
  if (outcome === null) return null
  const message = outcomeMessage(outcome.status, labelOf(providers, outcome.provider))
  return (
    <p
      class={`status-message ${message.tone}${providers === null ? " pending" : ""}`}
      role={message.tone === "bad" ? "alert" : "status"}
      data-status={outcome.status}
    >
      {message.text}
    </p>
  )
}

export const SignIn = ({ providers, onSignedIn }: { providers: ReadonlyArray<Provider> | null; onSignedIn: () => void }) => {
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const enabled = (providers ?? []).filter((p) => p.enabled)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const answer = await post("auth/login", { email: email.trim(), password })
      if (answer.status === 204 || answer.status === 200) {
        setPassword("")
        onSignedIn()
      } else if (answer.detail === "LOGIN_BAD_CREDENTIALS") {
        // The API's answer stays the contract's code; the page says what it means.
        setError("That e-mail and password do not match an account that can sign in with a password.")
      } else if (answer.status === 429) {
        const wait = answer.retryAfter === null ? "a while" : waitWords(answer.retryAfter)
        setError(`${plainDetail(answer.detail) ?? "Too many attempts to sign in."} Try again in ${wait}.`)
      } else {
        setError(plainDetail(answer.detail) ?? "Signing in failed. Try again later.")
      }
    } catch {
      setError("The service could not be reached. Check the connection and try again.")
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="panel" aria-labelledby="signin-title">
      <h2 id="signin-title">Sign in</h2>
      {providers === null ? (
        <p class="muted">Loading the ways to sign in…</p>
      ) : enabled.length === 0 ? (
        <p class="muted">No sign-in provider is set up on this service.</p>
      ) : (
        <div class="providers">
          {enabled.map((p) => (
            <a key={p.name} class="button primary" href={api(`oauth/${p.name}/login/start`)}
              onClick={goSignIn(`oauth/${p.name}/login/start`, unitsInUse)}>
              Sign in with {p.label}
            </a>
          ))}
        </div>
      )}
      {/* The password login is for accounts the service's operator made (its command line); most
          people sign in with a provider above, so it comes second and says whom it is for. */}
      <h3 class="or">
        {enabled.length === 0 ? "With a password" : "Or with a password"}
      </h3>
      <p class="muted small">For accounts made by whoever runs this service.</p>
      <form class="login-form" onSubmit={submit}>
        <label>
          E-mail
          <input type="email" autocomplete="username" required value={email} onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          Password
          <input
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <div>
          <button type="submit" class="button" disabled={busy}>
            Sign in with e-mail
          </button>
        </div>
        <p class="error-text" role="alert">
          {error}
        </p>
      </form>
    </section>
  )
}

export const Identities = ({ me, providers, onChange }: { me: Me; providers: ReadonlyArray<Provider> | null; onChange: () => void }) => {
  const [message, setMessage] = useState<string | null>(null)
  // A provider this service has not set up is not offered (unless this account is still linked to it).
  const names = (providers ?? []).filter((p) => p.enabled).map((p) => p.name)
  const linkedOnly = me.links.map((l) => l.provider).filter((n) => !names.includes(n))
  const unlink = async (name: string, label: string) => {
    setMessage(null)
    try {
      const answer = await post(`oauth/${name}/unlink`)
      if (answer.status === 204) {
        setMessage(`${label} is unlinked.`)
        onChange()
      } else if (answer.status === 409) {
        setMessage(
          `${label} cannot be unlinked: it is the only way into this account, which has no password. Link another provider first.`
        )
      } else if (answer.status === 401) {
        setMessage("You are no longer signed in.")
        onChange()
      } else {
        setMessage(plainDetail(answer.detail) ?? `Unlinking ${label} failed. Try again later.`)
      }
    } catch {
      setMessage("The service could not be reached. Check the connection and try again.")
    }
  }
  return (
    <section class="panel" aria-labelledby="identities-title">
      <h2 id="identities-title">Linked accounts</h2>
      <ul class="identities">
        {[...names, ...linkedOnly].map((name) => {
          const label = labelOf(providers, name)
          const link = me.links.find((l) => l.provider === name)
          const enabled = providers?.find((p) => p.name === name)?.enabled ?? false
          return (
            <li key={name}>
              <span>
                <strong>{label}</strong>{" "}
                <span class="muted">
                  {link !== undefined ? `linked${link.email === null ? "" : ` as ${link.email}`}` : "not linked"}
                </span>
              </span>
              {link !== undefined ? (
                <button type="button" class="button" onClick={() => unlink(name, label)}>
                  Unlink {label}
                </button>
              ) : enabled ? (
                // biome-ignore lint/a11y/noAmbiguousAnchorText: the name is "Link {LABEL}" (the provider's label), not a bare "link"
                <a class="button" href={api(`oauth/${name}/link/start`)}
                  onClick={goSignIn(`oauth/${name}/link/start`, unitsInUse)}>
                  Link {label}
                </a>
              ) : null}
            </li>
          )
        })}
      </ul>
      <p role="status" class="muted">
        {message}
      </p>
    </section>
  )
}

export const DirectMessages = ({ me, chatLabel, onChange }: { me: Me; chatLabel: string; onChange: (me: Me) => void }) => {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  if (!me.links.some((l) => l.provider === "chat")) return null
  const toggle = async (enabled: boolean) => {
    setBusy(true)
    setError(null)
    try {
      const answer = await post("chat/dm", { enabled })
      const body = answer.body as { chat_dm?: unknown } | null
      if (answer.status === 200 && typeof body?.chat_dm === "boolean") onChange({ ...me, chat_dm: body.chat_dm })
      else setError(plainDetail(answer.detail) ?? "The switch could not be changed. Try again later.")
    } catch {
      setError("The service could not be reached. Check the connection and try again.")
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="panel" aria-labelledby="dm-title">
      <h2 id="dm-title">Messages</h2>
      <label class="switch">
        <input type="checkbox" role="switch" aria-checked={me.chat_dm} checked={me.chat_dm} disabled={busy} onChange={(e) => toggle((e.currentTarget as HTMLInputElement).checked)} />
        Direct messages
      </label>
      <p class="muted">
        {me.chat_dm
          ? `On: alerts for the places you watch are sent to you as direct messages on ${chatLabel}.`
          : `Off: nothing is sent to you on ${chatLabel}.`}
      </p>
      <p class="error-text" role="alert">
        {error}
      </p>
    </section>
  )
}

export const AccountPage = () => {
  // Read once: the address's return= (or, back from a provider, the one kept in this tab).
  const [back] = useState(returnOf)
  const [providers, setProviders] = useState<ReadonlyArray<Provider> | null>(null)
  const [session, setSession] = useState<Session>({ tag: "checking" })
  const [notice, setNotice] = useState<string | null>(null)

  const refresh = async () => {
    try {
      const answer = await getJson<Me>("users/me")
      if (answer.status === 200 || answer.status === 401) rememberSignedIn(answer.status === 200)
      setSession(answer.body !== null ? { tag: "user", me: answer.body } : answer.status === 401 ? { tag: "visitor" } : { tag: "failed" })
    } catch {
      setSession({ tag: "failed" })
    }
  }

  useEffect(() => {
    getJson<{ providers: ReadonlyArray<Provider> }>("oauth/config").then(
      (answer) => setProviders(answer.body?.providers ?? []),
      () => setProviders([])
    )
    void refresh()
  }, [])

  const signOut = async () => {
    try {
      // The worker's pages first: the answer's Clear-Site-Data may remove the worker itself.
      await forgetStoredPages()
      await post("auth/logout")
    } finally {
      forgetPersonal()
      setNotice("You are signed out.")
      setSession({ tag: "visitor" })
    }
  }

  return (
    <>
      <header class="top">
        <a class="brand" href="./">
          <span class="logo" aria-hidden="true" />
          <span class="brand-name">Climate grade</span>
        </a>
        <a href={back?.path ?? "./"}>Back to the grades</a>
      </header>
      <main class="account">
        <h1>Account and alerts</h1>
        <Outcome providers={providers} />
        {back !== null && (
          <p class="return-to">
            <a class="button primary" href={back.path}>
              Back to {back.place}
            </a>{" "}
            <span class="muted">{session.tag === "user" ? "to watch it" : "once you are signed in, to watch it"}</span>
          </p>
        )}
        {notice !== null && (
          <p class="status-message info" role="status">
            {notice}
          </p>
        )}
        {session.tag === "checking" && <p class="muted">Checking whether you are signed in…</p>}
        {session.tag === "failed" && <p class="error-text">The service could not be reached. Reload the page to try again.</p>}
        {session.tag === "visitor" && (
          <SignIn
            providers={providers}
            onSignedIn={() => {
              setNotice(null)
              void refresh()
            }}
          />
        )}
        {session.tag === "user" && (
          <>
            <section class="panel" aria-labelledby="me-title">
              <h2 id="me-title">Signed in</h2>
              <p>
                You are signed in as <strong>{session.me.email}</strong>.
              </p>
              <button type="button" class="button" onClick={signOut}>
                Sign out
              </button>
            </section>
            <Identities me={session.me} providers={providers} onChange={() => void refresh()} />
            <DirectMessages me={session.me} chatLabel={labelOf(providers, "chat")} onChange={(me) => setSession({ tag: "user", me })} />
            <Watches
              key={session.me.id}
              chatLinked={session.me.links.some((l) => l.provider === "chat")}
              chatLabel={labelOf(providers, "chat")}
            />
            <YourData
              email={session.me.email}
              onDeleted={() => {
                forgetPersonal()
                void forgetStoredPages()
                setNotice("Your account is deleted, with everything of it. You are signed out.")
                setSession({ tag: "visitor" })
              }}
              onSignedOut={() => void refresh()}
            />
          </>
        )}
      </main>
    </>
  )
}
