/**
 * The direct message an alert sends, as a pure function of the alert and of how its user reads:
 * the language of the page they last signed in from and the units they chose (the core's message
 * catalogs, numbers and dates by `Intl` in that language, the percentile as the pages print it).
 */
import * as CivilDate from "../CivilDate.js"
import type { Grade } from "../data/Payloads.js"
import { FALLBACK, type Language } from "../i18n/Languages.js"
import { formatValue, labelWords, longDate, percentileWords, t } from "../i18n/Messages.js"
import type { Variable } from "../weather/DailySeries.js"
import type { Unit, Units } from "../words/Words.js"
import type { Kind } from "./Kinds.js"

/** `{origin}{basePath}/?lat=..&lon=..&date=..`: the main page at that place and date. */
export const link = (input: {
  readonly origin: string
  readonly basePath: string
  readonly lat: number
  readonly lon: number
  readonly date: CivilDate.EpochDay
}): string => `${input.origin}${input.basePath}/?lat=${input.lat}&lon=${input.lon}&date=${CivilDate.format(input.date)}`

/** How a user's messages read: null members are the defaults, English and metric. */
export interface Reader {
  readonly language: Language | null
  readonly units: Units | null
}

export const DEFAULT_READER: Reader = { language: null, units: null }

export interface MessageInput {
  readonly place: string
  readonly date: CivilDate.EpochDay
  readonly kind: Kind
  readonly variable: Variable
  readonly grade: Grade
  readonly link: string
  readonly reader?: Reader | undefined
}

const isRecord = (label: string | null) => label === "record-high" || label === "record-low"

/**
 * E.g. `Heat alert for Berlin, DE on Tue 14 July 2026: high temperature 97.2 °F, much above
 * normal for this place and time of year (99th percentile). https://…/?lat=52.52&lon=13.4&date=2026-07-14`,
 * or `Hitzewarnung für Berlin, DE am Di., 14. Juli 2026: Höchsttemperatur 36,2 °C, …`.
 */
export const content = (input: MessageInput): string => {
  const lang = input.reader?.language ?? FALLBACK
  const units = input.reader?.units ?? "metric"
  const { grade, variable } = input
  const common = {
    alert: t(lang, `alert.${input.kind}`),
    place: input.place,
    date: longDate(lang, CivilDate.format(input.date)),
    noun: t(lang, `message.noun.${variable}`),
    value: formatValue(lang, grade.value, grade.unit as Unit, units),
    url: input.link
  }
  if (grade.label === null || grade.percentile === null || isRecord(grade.label)) {
    const record =
      grade.label === "record-high"
        ? t(lang, variable === "precip" ? "message.record-wet" : "message.record-high")
        : grade.label === "record-low"
          ? t(lang, "message.record-low")
          : t(lang, "value.none")
    return t(lang, "message.daily.record", { ...common, record })
  }
  return t(lang, "message.daily", {
    ...common,
    label: labelWords(lang, variable, grade.label),
    percentile: percentileWords(lang, grade.percentile)
  })
}
