/**
 * Leaving: the user's data as a file to keep, and the deletion of the account, behind a
 * confirmation in a modal `<dialog>` (the browser traps focus in it, Escape cancels, and focus
 * returns to the button that opened it). The dialog starts on "Cancel": deleting takes a choice.
 */
import { useRef, useState } from "preact/hooks"
import { api, getJson } from "../api.js"
import { around, w } from "../i18n/index.js"
import { plainDetail } from "../refusal.js"

export const YourData = ({ email, onDeleted, onSignedOut }: { email: string; onDeleted: () => void; onSignedOut: () => void }) => {
  const dialog = useRef<HTMLDialogElement>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const open = () => {
    setError(null)
    dialog.current?.showModal()
  }
  const close = () => dialog.current?.close()
  const remove = async () => {
    setBusy(true)
    setError(null)
    try {
      const answer = await getJson<unknown>("users/me", { method: "DELETE" })
      if (answer.status === 204) {
        close()
        onDeleted()
      } else if (answer.status === 401) {
        close()
        onSignedOut()
      } else {
        setError(plainDetail(answer.detail) ?? w("data.delete-failed"))
      }
    } catch {
      setError(w("unreachable"))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="panel" aria-labelledby="data-title">
      <h2 id="data-title">{w("data.title")}</h2>
      <p class="muted">{w("data.what")}</p>
      <p>
        <a class="button" href={api("users/me/export")} download="climate-grade-account.json">
          {w("data.download")}
        </a>
      </p>
      <p class="muted">{w("data.delete-what")}</p>
      <p>
        <button type="button" class="button danger" onClick={open}>
          {w("data.delete")}
        </button>
      </p>
      <dialog ref={dialog} class="confirm" aria-labelledby="delete-title" aria-describedby="delete-what">
        <h2 id="delete-title">{w("data.confirm.title")}</h2>
        <p id="delete-what">
          {around("data.confirm.what", "email")[0]}
          <strong>{email}</strong>
          {around("data.confirm.what", "email")[1]}
        </p>
        <p class="error-text" role="alert">
          {error}
        </p>
        <div class="actions">
          <button type="button" class="button" autofocus onClick={close}>
            {w("data.cancel")}
          </button>
          <button type="button" class="button danger" disabled={busy} onClick={remove}>
            {w("data.confirm")}
          </button>
        </div>
      </dialog>
    </section>
  )
}
