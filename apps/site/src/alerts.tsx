/** Entry of the account page (`{BASE_PATH}/alerts`). */
import { render } from "preact"
import { AccountPage } from "./account/AccountPage.js"
import { applyLanguage, pageLanguage, w } from "./i18n/index.js"
import "./styles.css"

void applyLanguage(pageLanguage()).then(() => {
  document.title = `${w("foot.account")} — Climate grade`
  render(<AccountPage />, document.getElementById("app")!)
})
