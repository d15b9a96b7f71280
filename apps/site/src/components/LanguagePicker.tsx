/**
 * The language picker of every page: the seven languages by their own names. A choice is kept in this
 * browser and the page opens again at the same address in it (any `lang=` in the address, which would
 * beat the kept choice, is dropped), so the place, the day and the units stay as they were.
 */
import { Languages } from "@climate-grade/core/rules"
import { keepLanguage, lang, w } from "../i18n/index.js"

const switchTo = (next: Languages.Language) => {
  keepLanguage(next)
  const url = new URL(location.href)
  url.searchParams.delete("lang")
  location.assign(url.href)
}

export const LanguagePicker = () => (
  <label class="language">
    <span class="sr-only">{w("language")}</span>
    <select
      value={lang()}
      onChange={(e) => {
        const next = (e.currentTarget as HTMLSelectElement).value
        if (Languages.isLanguage(next) && next !== lang()) switchTo(next)
      }}
    >
      {Languages.LANGUAGES.map((l) => (
        <option key={l} value={l} lang={l}>
          {Languages.NATIVE_NAME[l]}
        </option>
      ))}
    </select>
  </label>
)
