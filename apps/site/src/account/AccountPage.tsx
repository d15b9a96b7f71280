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
import { around, w } from "../i18n/index.js"
import { plainDetail, waitWords } from "../refusal.js"
import { forgetStoredPages } from "../serviceWorker.js"
import { forgetPersonal, rememberSignedIn, storedUnits } from "../storage.js"
import { LanguagePicker } from "../components/LanguagePicker.js"
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
  providers?.find((p) => p.name === name)?.label ?? (name === "chat" ? "Chat" : name === "idp" ? w("account.idp") : name)

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
        setError(w("signin.bad"))
      } else if (answer.code === "too-many-requests") {
        const wait = answer.retryAfter === null ? w("signin.a-while") : waitWords(answer.retryAfter)
        setError(`${plainDetail(answer.detail) ?? w("signin.too-many")} ${w("signin.try-in", { wait })}`)
      } else {
        setError(plainDetail(answer.detail) ?? w("signin.failed"))
      }
    } catch {
      setError(w("unreachable"))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="panel" aria-labelledby="signin-title">
      <h2 id="signin-title">{w("signin.title")}</h2>
      {providers === null ? (
        <p class="muted">{w("signin.loading")}</p>
      ) : enabled.length === 0 ? (
        <p class="muted">{w("signin.no-provider")}</p>
      ) : (
        <div class="providers">
          {enabled.map((p) => (
            <a key={p.name} class="button primary" href={api(`oauth/${p.name}/login/start`)}
              onClick={goSignIn(`oauth/${p.name}/login/start`, unitsInUse)}>
              {w("signin.with", { provider: p.label })}
            </a>
          ))}
        </div>
      )}
      {/* The password login is for accounts the service's operator made (its command line); most
          people sign in with a provider above, so it comes second and says whom it is for. */}
      <h3 class="or">
        {enabled.length === 0 ? w("signin.password") : w("signin.or-password")}
      </h3>
      <p class="muted small">{w("signin.password-for")}</p>
      <form class="login-form" onSubmit={submit}>
        <label>
          {w("signin.email")}
          <input type="email" autocomplete="username" required value={email} onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          {w("signin.password-field")}
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
            {w("signin.email-button")}
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
        setMessage(w("links.unlinked", { provider: label }))
        onChange()
      } else if (answer.code === "last-sign-in") {
        setMessage(w("links.only-way", { provider: label }))
      } else if (answer.status === 401) {
        setMessage(w("account.signed-out-elsewhere"))
        onChange()
      } else {
        setMessage(plainDetail(answer.detail) ?? w("links.unlink-failed", { provider: label }))
      }
    } catch {
      setMessage(w("unreachable"))
    }
  }
  return (
    <section class="panel" aria-labelledby="identities-title">
      <h2 id="identities-title">{w("links.title")}</h2>
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
                  {link !== undefined ? (link.email === null ? w("links.linked") : w("links.linked-as", { email: link.email })) : w("links.not-linked")}
                </span>
              </span>
              {link !== undefined ? (
                <button type="button" class="button" onClick={() => unlink(name, label)}>
                  {w("links.unlink", { provider: label })}
                </button>
              ) : enabled ? (
                <a class="button" href={api(`oauth/${name}/link/start`)}
                  onClick={goSignIn(`oauth/${name}/link/start`, unitsInUse)}>
                  {w("links.link", { provider: label })}
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
      else setError(plainDetail(answer.detail) ?? w("dm.failed"))
    } catch {
      setError(w("unreachable"))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="panel" aria-labelledby="dm-title">
      <h2 id="dm-title">{w("dm.title")}</h2>
      <label class="switch">
        <input type="checkbox" role="switch" aria-checked={me.chat_dm} checked={me.chat_dm} disabled={busy} onChange={(e) => toggle((e.currentTarget as HTMLInputElement).checked)} />
        {w("dm.switch")}
      </label>
      <p class="muted">
        {me.chat_dm
          ? w("dm.on", { chat: chatLabel })
          : w("dm.off", { chat: chatLabel })}
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
      setNotice(w("account.signed-out"))
      setSession({ tag: "visitor" })
    }
  }

  return (
    <>
      <header class="top">
        <a class="brand" href="./">
          <span class="logo" aria-hidden="true" />
          <span class="brand-name">{w("brand")}</span>
        </a>
        <div class="top-controls">
          <LanguagePicker />
          <a href={back?.path ?? "./"}>{w("account.back")}</a>
        </div>
      </header>
      <main class="account">
        <h1>{w("foot.account")}</h1>
        <Outcome providers={providers} />
        {back !== null && (
          <p class="return-to">
            <a class="button primary" href={back.path}>
              {w("account.back-to", { place: back.place })}
            </a>{" "}
            <span class="muted">{session.tag === "user" ? w("account.to-watch") : w("account.to-watch.signed-out")}</span>
          </p>
        )}
        {notice !== null && (
          <p class="status-message info" role="status">
            {notice}
          </p>
        )}
        {session.tag === "checking" && <p class="muted">{w("account.checking")}</p>}
        {session.tag === "failed" && <p class="error-text">{w("account.unreachable")}</p>}
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
              <h2 id="me-title">{w("account.signed-in")}</h2>
              <p>
                {around("account.signed-in-as", "email")[0]}
                <strong>{session.me.email}</strong>
                {around("account.signed-in-as", "email")[1]}
              </p>
              <button type="button" class="button" onClick={signOut}>
                {w("account.sign-out")}
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
                setNotice(w("account.deleted"))
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
