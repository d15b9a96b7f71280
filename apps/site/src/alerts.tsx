/** Entry of the account page (`{BASE_PATH}/alerts`). */
import { render } from "preact"
import { AccountPage } from "./account/AccountPage.js"
import "./styles.css"

render(<AccountPage />, document.getElementById("app")!)
