/** Entry of the main page. */
import { render } from "preact"
import { App } from "./App.js"
import { pageLanguage, applyLanguage } from "./i18n/index.js"
import { start } from "./state.js"
import "./styles.css"

// The language's words are fetched at once, while the place's data loads; the page is drawn when they are here.
const words = applyLanguage(pageLanguage())
start()
void words.then(() => render(<App />, document.getElementById("app")!))
