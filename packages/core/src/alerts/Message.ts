/** The direct message an alert sends, as a pure function of the alert. */
import * as CivilDate from "../CivilDate.js"
import type { Grade } from "../data/Payloads.js"
import type { Variable } from "../weather/DailySeries.js"
import { type Kind, noun } from "./Kinds.js"

const variableWords: { readonly [V in Variable]: string } = {
  tmax: "high temperature",
  tmin: "low temperature",
  precip: "precipitation"
}

const labelWords: Readonly<Record<string, string>> = {
  "record-high": "a record high",
  "record-low": "a record low",
  "much-above": "much above normal",
  "much-below": "much below normal",
  above: "above normal",
  below: "below normal",
  "near-normal": "near normal"
}

export const labelInWords = (label: string): string => labelWords[label] ?? label

/** `{origin}{basePath}/?lat=..&lon=..&date=..`: the main page at that place and date. */
export const link = (input: {
  readonly origin: string
  readonly basePath: string
  readonly lat: number
  readonly lon: number
  readonly date: CivilDate.EpochDay
}): string => `${input.origin}${input.basePath}/?lat=${input.lat}&lon=${input.lon}&date=${CivilDate.format(input.date)}`

export interface MessageInput {
  readonly place: string
  readonly date: CivilDate.EpochDay
  readonly kind: Kind
  readonly variable: Variable
  readonly grade: Grade
  readonly link: string
}

/**
 * E.g. `Heat alert for Berlin, DE on 2026-07-14: high temperature 36.2 °C, percentile 99.4, much
 * above normal for this place and time of year. https://…/?lat=52.52&lon=13.4&date=2026-07-14`
 */
export const content = (input: MessageInput): string => {
  const value = input.grade.value === null ? "no value" : `${input.grade.value.toFixed(1)} ${input.grade.unit}`
  const percentile = input.grade.percentile === null ? "" : `, percentile ${input.grade.percentile.toFixed(1)}`
  const label = input.grade.label === null ? "" : `, ${labelInWords(input.grade.label)} for this place and time of year`
  return (
    `${noun[input.kind]} alert for ${input.place} on ${CivilDate.format(input.date)}: ` +
    `${variableWords[input.variable]} ${value}${percentile}${label}. ${input.link}`
  )
}
