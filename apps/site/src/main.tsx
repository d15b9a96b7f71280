/** Entry of the main page. */
import { render } from "preact"
import { App } from "./App.js"
import { start } from "./state.js"
import "./styles.css"

start()
render(<App />, document.getElementById("app")!)
