/**
 * Leaving: the user's data as a file to keep, and the deletion of the account, behind a
 * confirmation in a modal `<dialog>` (the browser traps focus in it, Escape cancels, and focus
 * returns to the button that opened it). The dialog starts on "Cancel": deleting takes a choice.
 */
import { useRef, useState } from "preact/hooks"
import { api, getJson } from "../api.js"
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
        setError(plainDetail(answer.detail) ?? "The account could not be deleted. Try again later.")
      }
    } catch {
      setError("The service could not be reached. Check the connection and try again.")
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="panel" aria-labelledby="data-title">
      <h2 id="data-title">Your data</h2>
      <p class="muted">
        A file of everything this service holds about you: the account, linked identities, watched places, alerts and
        messages. It holds no password and no sign-in token.
      </p>
      <p>
        <a class="button" href={api("users/me/export")} download="climate-grade-account.json">
          Download your data
        </a>
      </p>
      <p class="muted">Deleting the account removes it and everything of it, and signs you out everywhere.</p>
      <p>
        <button type="button" class="button danger" onClick={open}>
          Delete account…
        </button>
      </p>
      <dialog ref={dialog} class="confirm" aria-labelledby="delete-title" aria-describedby="delete-what">
        <h2 id="delete-title">Delete this account?</h2>
        <p id="delete-what">
          The account <strong>{email}</strong>, its linked identities, watched places, alerts and unsent messages are deleted
          for good, and every session ends. This cannot be undone.
        </p>
        <p class="error-text" role="alert">
          {error}
        </p>
        <div class="actions">
          <button type="button" class="button" autofocus onClick={close}>
            Cancel
          </button>
          <button type="button" class="button danger" disabled={busy} onClick={remove}>
            Delete my account
          </button>
        </div>
      </dialog>
    </section>
  )
}
