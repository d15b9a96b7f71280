/** Entry of the account page (`{BASE_PATH}/alerts`). */
import { render } from "preact"
import { AccountPage } from "./account/AccountPage.js"
import { applyLanguage, laterWords, pageLanguage, w } from "./i18n/index.js"
import "./styles.css"

// The page's words and the account page's own (later/) come together.
const language = pageLanguage()
void Promise.all([applyLanguage(language), laterWords(language)]).then(() => {
  document.title = `${w("foot.account")} — Climate grade`
  render(<AccountPage />, document.getElementById("app")!)
})
