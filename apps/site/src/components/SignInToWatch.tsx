/** What "Watch this place" is for a visitor: a way to sign in. Drawn at once, without the account code. */
export const SignInToWatch = () => (
  <p class="watch-place">
    <a href="alerts">Sign in to watch this place</a>
  </p>
)
