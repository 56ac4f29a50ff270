/**
 * The portal's entry point: its stylesheet and the shell, rendered into `#app` of `index.html`.
 */
import { render } from "preact"
import { Shell } from "./Shell.js"
import "./styles.css"

render(<Shell />, document.getElementById("app")!)
