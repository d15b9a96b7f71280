/**
 * What "Watch this place" is for a visitor: a way to sign in that comes back to this place (the
 * account page's `return=`). Drawn at once, without the account code.
 */
import { w } from "../i18n/index.js"

export const SignInToWatch = ({ href }: { href: string }) => (
  <p class="watch-place">
    <a href={href}>{w("watch.sign-in")}</a>
  </p>
)
