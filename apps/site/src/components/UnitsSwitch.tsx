/** °C and mm, or °F and inches: two radio buttons, remembered by the caller. */
import { w } from "../i18n/index.js"
import type { Units } from "../payloads.js"

export const UnitsSwitch = ({ units, onChange }: { units: Units; onChange: (u: Units) => void }) => (
  <fieldset class="toggle units">
    <legend class="sr-only">{w("units")}</legend>
    {(
      [
        ["metric", "°C, mm", w("units.metric")],
        ["imperial", "°F, in", w("units.imperial")]
      ] as const
    ).map(([value, text, name]) => (
      <label key={value} class={units === value ? "is-on" : ""}>
        <input type="radio" name="units" value={value} checked={units === value} aria-label={name} onChange={() => onChange(value)} />
        <span aria-hidden="true" dir="ltr">
          {text}
        </span>
      </label>
    ))}
  </fieldset>
)
