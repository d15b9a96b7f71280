/** Entry of the main page. */
import { render } from "preact"
import { App } from "./App.js"
import { addressProblem } from "./address.js"
import { pageLanguage, applyLanguage } from "./i18n/index.js"
import { problem, start } from "./state.js"
import { prepareLocalDate } from "./today.js"
import "./styles.css"

// The language's words are fetched at once, while the place's data loads; the page is drawn when they are here.
const words = applyLanguage(pageLanguage())
start()
// The first draw in a task of its own, not in this module's evaluation (with the parser's end and the
// draw's style and layout, one task of ~200 ms on a phone); then, in a browser without Temporal, the
// date machinery in another, while the data is on its way rather than in the place's first draw
// (see prepareLocalDate; with Temporal the first view needs no Intl at all).
void words.then(() =>
  setTimeout(() => {
    // What is wrong with the address was put in words when the state was made, before its language's words came.
    if (problem.value !== null) problem.value = addressProblem(location.search)
    render(<App />, document.getElementById("app")!)
    setTimeout(prepareLocalDate, 0)
  }, 0)
)
