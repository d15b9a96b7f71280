/**
 * Every word the pages' heads, the card and the direct messages say, per language, in one place.
 * A message is a string with `{name}` placeholders; numbers and dates are formatted by `Intl` in the
 * language's locale before they go in (a decimal comma where the locale has one). `Intl.PluralRules`,
 * `Intl.NumberFormat` and `Intl.DateTimeFormat` are used directly: every browser and Node 20 have
 * them, and the few plural forms needed are keyed by their category (docs/i18n.md says why no ICU runtime).
 * Browser-safe: no IO, no `effect`, no Node built-in.
 */
import type { Label } from "../grading/Percentile.js"
import type { Variable } from "../weather/DailySeries.js"
import { convert, type Unit, type Units, unitSymbol } from "../words/Words.js"
import type { Language } from "./Languages.js"

const en = {
  "site.name": "Climate grade",
  "site.title": "Climate grade — how unusual is today's weather?",
  "site.description": "Any place on Earth, today and the coming 16 days graded against its own weather history since 1940.",
  "variable.tmax": "High",
  "variable.tmin": "Low",
  "variable.precip": "Precipitation",
  "noun.tmax": "high",
  "noun.tmin": "low",
  "noun.precip": "precipitation",
  "label.record-low": "record low",
  "label.much-below": "much below normal",
  "label.below": "below normal",
  "label.near-normal": "near normal",
  "label.above": "above normal",
  "label.much-above": "much above normal",
  "label.record-high": "record high",
  "precip.record-low": "record low",
  "precip.much-below": "much drier than normal",
  "precip.below": "drier than normal",
  "precip.near-normal": "near normal",
  "precip.above": "wetter than normal",
  "precip.much-above": "much wetter than normal",
  "precip.record-high": "record wet",
  "value.none": "no value",
  "percentile": "{p}th percentile",
  "percentile.none": "no percentile (n = {n})",
  "dry.like": "Dry, like {share}% of days",
  "grade.words": "{noun} {value} ({percentile}, {label})",
  "grade.ungraded": "{noun} {value} (not graded: {n} comparable days)",
  "grade.novalue": "{noun}: no value",
  "head.today": "{place} today: {verdict}",
  "head.verdict": "{noun} {value}, {label}",
  "head.ordinary": "an ordinary day for the time of year",
  "head.nothing": "today's weather against its history",
  "head.title": "{headline} — {site}",
  "head.description": "{date} at {place}: {grades}. Each ranked against the same days of the year {since}.",
  "head.alt": "{place}, {date}: {grades}",
  "since.year": "in every year since {year}",
  "since.record": "in the record",
  "card.footer": "Ranked against the same days of the year {since} · ERA5 via Open-Meteo",
  "card.since": "since {year}",
  "message.alert": "{place}: {noun} {value} on {date}, {label} ({percentile}).",
  "message.footer": "Climate grade: {url}"
}

export type Key = keyof typeof en
export type Catalog = Readonly<Record<Key, string>>

const de: Catalog = {
  "site.name": "Climate grade",
  "site.title": "Climate grade — wie ungewöhnlich ist das Wetter heute?",
  "site.description": "Jeder Ort der Erde: heute und die nächsten 16 Tage, gemessen an seiner eigenen Wettergeschichte seit 1940.",
  "variable.tmax": "Höchstwert",
  "variable.tmin": "Tiefstwert",
  "variable.precip": "Niederschlag",
  "noun.tmax": "Höchstwert",
  "noun.tmin": "Tiefstwert",
  "noun.precip": "Niederschlag",
  "label.record-low": "Rekordtief",
  "label.much-below": "deutlich unter dem Mittel",
  "label.below": "unter dem Mittel",
  "label.near-normal": "im Mittel",
  "label.above": "über dem Mittel",
  "label.much-above": "deutlich über dem Mittel",
  "label.record-high": "Rekordhoch",
  "precip.record-low": "Rekordtief",
  "precip.much-below": "deutlich trockener als üblich",
  "precip.below": "trockener als üblich",
  "precip.near-normal": "im Mittel",
  "precip.above": "nasser als üblich",
  "precip.much-above": "deutlich nasser als üblich",
  "precip.record-high": "Rekordnässe",
  "value.none": "kein Wert",
  "percentile": "{p}. Perzentil",
  "percentile.none": "kein Perzentil (n = {n})",
  "dry.like": "Trocken wie {share} % der Tage",
  "grade.words": "{noun} {value} ({percentile}, {label})",
  "grade.ungraded": "{noun} {value} (nicht bewertet: {n} vergleichbare Tage)",
  "grade.novalue": "{noun}: kein Wert",
  "head.today": "{place} heute: {verdict}",
  "head.verdict": "{noun} {value}, {label}",
  "head.ordinary": "ein gewöhnlicher Tag für die Jahreszeit",
  "head.nothing": "das heutige Wetter im Vergleich mit seiner Geschichte",
  "head.title": "{headline} — {site}",
  "head.description": "{date} in {place}: {grades}. Jeweils verglichen mit denselben Tagen des Jahres {since}.",
  "head.alt": "{place}, {date}: {grades}",
  "since.year": "in jedem Jahr seit {year}",
  "since.record": "in der Messreihe",
  "card.footer": "Verglichen mit denselben Tagen des Jahres {since} · ERA5 über Open-Meteo",
  "card.since": "seit {year}",
  "message.alert": "{place}: {noun} {value} am {date}, {label} ({percentile}).",
  "message.footer": "Climate grade: {url}"
}

const fr: Catalog = {
  "site.name": "Climate grade",
  "site.title": "Climate grade — le temps d'aujourd'hui est-il inhabituel ?",
  "site.description": "Tout lieu sur Terre : aujourd'hui et les 16 jours à venir comparés à son propre historique météo depuis 1940.",
  "variable.tmax": "Maximale",
  "variable.tmin": "Minimale",
  "variable.precip": "Précipitations",
  "noun.tmax": "maximale",
  "noun.tmin": "minimale",
  "noun.precip": "précipitations",
  "label.record-low": "record de froid",
  "label.much-below": "très inférieur à la normale",
  "label.below": "inférieur à la normale",
  "label.near-normal": "proche de la normale",
  "label.above": "supérieur à la normale",
  "label.much-above": "très supérieur à la normale",
  "label.record-high": "record de chaleur",
  "precip.record-low": "record de sécheresse",
  "precip.much-below": "bien plus sec que la normale",
  "precip.below": "plus sec que la normale",
  "precip.near-normal": "proche de la normale",
  "precip.above": "plus humide que la normale",
  "precip.much-above": "bien plus humide que la normale",
  "precip.record-high": "record de pluie",
  "value.none": "pas de valeur",
  "percentile": "{p}e centile",
  "percentile.none": "pas de centile (n = {n})",
  "dry.like": "Sec, comme {share} % des jours",
  "grade.words": "{noun} {value} ({percentile}, {label})",
  "grade.ungraded": "{noun} {value} (non classé : {n} jours comparables)",
  "grade.novalue": "{noun} : pas de valeur",
  "head.today": "{place} aujourd'hui : {verdict}",
  "head.verdict": "{noun} {value}, {label}",
  "head.ordinary": "une journée ordinaire pour la saison",
  "head.nothing": "le temps d'aujourd'hui face à son historique",
  "head.title": "{headline} — {site}",
  "head.description": "{date} à {place} : {grades}. Chaque valeur comparée aux mêmes jours de l'année {since}.",
  "head.alt": "{place}, {date} : {grades}",
  "since.year": "de chaque année depuis {year}",
  "since.record": "de la série",
  "card.footer": "Comparé aux mêmes jours de l'année {since} · ERA5 via Open-Meteo",
  "card.since": "depuis {year}",
  "message.alert": "{place} : {noun} {value} le {date}, {label} ({percentile}).",
  "message.footer": "Climate grade : {url}"
}

const es: Catalog = {
  "site.name": "Climate grade",
  "site.title": "Climate grade — ¿qué tan inusual es el tiempo de hoy?",
  "site.description": "Cualquier lugar del mundo: hoy y los próximos 16 días comparados con su propio historial meteorológico desde 1940.",
  "variable.tmax": "Máxima",
  "variable.tmin": "Mínima",
  "variable.precip": "Precipitación",
  "noun.tmax": "máxima",
  "noun.tmin": "mínima",
  "noun.precip": "precipitación",
  "label.record-low": "mínimo récord",
  "label.much-below": "muy por debajo de lo normal",
  "label.below": "por debajo de lo normal",
  "label.near-normal": "normal",
  "label.above": "por encima de lo normal",
  "label.much-above": "muy por encima de lo normal",
  "label.record-high": "máximo récord",
  "precip.record-low": "mínimo récord",
  "precip.much-below": "mucho más seco de lo normal",
  "precip.below": "más seco de lo normal",
  "precip.near-normal": "normal",
  "precip.above": "más lluvioso de lo normal",
  "precip.much-above": "mucho más lluvioso de lo normal",
  "precip.record-high": "lluvia récord",
  "value.none": "sin valor",
  "percentile": "percentil {p}",
  "percentile.none": "sin percentil (n = {n})",
  "dry.like": "Seco, como el {share} % de los días",
  "grade.words": "{noun} {value} ({percentile}, {label})",
  "grade.ungraded": "{noun} {value} (sin calificar: {n} días comparables)",
  "grade.novalue": "{noun}: sin valor",
  "head.today": "{place} hoy: {verdict}",
  "head.verdict": "{noun} {value}, {label}",
  "head.ordinary": "un día normal para la época del año",
  "head.nothing": "el tiempo de hoy frente a su historial",
  "head.title": "{headline} — {site}",
  "head.description": "{date} en {place}: {grades}. Cada valor comparado con los mismos días del año {since}.",
  "head.alt": "{place}, {date}: {grades}",
  "since.year": "de cada año desde {year}",
  "since.record": "del registro",
  "card.footer": "Comparado con los mismos días del año {since} · ERA5 vía Open-Meteo",
  "card.since": "desde {year}",
  "message.alert": "{place}: {noun} {value} el {date}, {label} ({percentile}).",
  "message.footer": "Climate grade: {url}"
}

const pt: Catalog = {
  "site.name": "Climate grade",
  "site.title": "Climate grade — quão invulgar é o tempo de hoje?",
  "site.description": "Qualquer lugar da Terra: hoje e os próximos 16 dias comparados com o seu próprio histórico meteorológico desde 1940.",
  "variable.tmax": "Máxima",
  "variable.tmin": "Mínima",
  "variable.precip": "Precipitação",
  "noun.tmax": "máxima",
  "noun.tmin": "mínima",
  "noun.precip": "precipitação",
  "label.record-low": "mínimo recorde",
  "label.much-below": "muito abaixo do normal",
  "label.below": "abaixo do normal",
  "label.near-normal": "normal",
  "label.above": "acima do normal",
  "label.much-above": "muito acima do normal",
  "label.record-high": "máximo recorde",
  "precip.record-low": "mínimo recorde",
  "precip.much-below": "muito mais seco do que o normal",
  "precip.below": "mais seco do que o normal",
  "precip.near-normal": "normal",
  "precip.above": "mais chuvoso do que o normal",
  "precip.much-above": "muito mais chuvoso do que o normal",
  "precip.record-high": "chuva recorde",
  "value.none": "sem valor",
  "percentile": "percentil {p}",
  "percentile.none": "sem percentil (n = {n})",
  "dry.like": "Seco, como {share} % dos dias",
  "grade.words": "{noun} {value} ({percentile}, {label})",
  "grade.ungraded": "{noun} {value} (sem classificação: {n} dias comparáveis)",
  "grade.novalue": "{noun}: sem valor",
  "head.today": "{place} hoje: {verdict}",
  "head.verdict": "{noun} {value}, {label}",
  "head.ordinary": "um dia normal para a época do ano",
  "head.nothing": "o tempo de hoje face ao seu histórico",
  "head.title": "{headline} — {site}",
  "head.description": "{date} em {place}: {grades}. Cada valor comparado com os mesmos dias do ano {since}.",
  "head.alt": "{place}, {date}: {grades}",
  "since.year": "de todos os anos desde {year}",
  "since.record": "do registo",
  "card.footer": "Comparado com os mesmos dias do ano {since} · ERA5 via Open-Meteo",
  "card.since": "desde {year}",
  "message.alert": "{place}: {noun} {value} em {date}, {label} ({percentile}).",
  "message.footer": "Climate grade: {url}"
}

const ja: Catalog = {
  "site.name": "Climate grade",
  "site.title": "Climate grade — 今日の天気はどれほど珍しい？",
  "site.description": "世界のどこでも、今日と今後16日間の天気を1940年以降のその土地の記録と比べます。",
  "variable.tmax": "最高気温",
  "variable.tmin": "最低気温",
  "variable.precip": "降水量",
  "noun.tmax": "最高気温",
  "noun.tmin": "最低気温",
  "noun.precip": "降水量",
  "label.record-low": "記録的な低さ",
  "label.much-below": "かなり低い",
  "label.below": "低い",
  "label.near-normal": "平年並み",
  "label.above": "高い",
  "label.much-above": "かなり高い",
  "label.record-high": "記録的な高さ",
  "precip.record-low": "記録的な少なさ",
  "precip.much-below": "かなり少ない",
  "precip.below": "少ない",
  "precip.near-normal": "平年並み",
  "precip.above": "多い",
  "precip.much-above": "かなり多い",
  "precip.record-high": "記録的な多さ",
  "value.none": "値なし",
  "percentile": "{p}パーセンタイル",
  "percentile.none": "パーセンタイルなし（n = {n}）",
  "dry.like": "降水なし（{share}%の日と同じ）",
  "grade.words": "{noun} {value}（{percentile}、{label}）",
  "grade.ungraded": "{noun} {value}（評価なし：比較できる日は{n}日）",
  "grade.novalue": "{noun}：値なし",
  "head.today": "今日の{place}：{verdict}",
  "head.verdict": "{noun} {value}、{label}",
  "head.ordinary": "この時季としては平年並みの一日",
  "head.nothing": "今日の天気を過去の記録と比較",
  "head.title": "{headline} — {site}",
  "head.description": "{date}、{place}：{grades}。{since}の同じ時期の日と比較。",
  "head.alt": "{place}、{date}：{grades}",
  "since.year": "{year}年以降の各年",
  "since.record": "記録期間",
  "card.footer": "{since}の同じ時期の日と比較 · ERA5（Open-Meteo経由）",
  "card.since": "{year}年以降",
  "message.alert": "{place}：{date}の{noun}は{value}、{label}（{percentile}）。",
  "message.footer": "Climate grade：{url}"
}

const ar: Catalog = {
  "site.name": "Climate grade",
  "site.title": "Climate grade — ما مدى غرابة طقس اليوم؟",
  "site.description": "أي مكان على الأرض: اليوم والأيام الستة عشر القادمة مقارنةً بتاريخه المناخي منذ 1940.",
  "variable.tmax": "العظمى",
  "variable.tmin": "الصغرى",
  "variable.precip": "الهطول",
  "noun.tmax": "الحرارة العظمى",
  "noun.tmin": "الحرارة الصغرى",
  "noun.precip": "الهطول",
  "label.record-low": "أدنى مستوى قياسي",
  "label.much-below": "أدنى بكثير من المعدل",
  "label.below": "أدنى من المعدل",
  "label.near-normal": "قريب من المعدل",
  "label.above": "أعلى من المعدل",
  "label.much-above": "أعلى بكثير من المعدل",
  "label.record-high": "أعلى مستوى قياسي",
  "precip.record-low": "أدنى مستوى قياسي",
  "precip.much-below": "أجفّ بكثير من المعتاد",
  "precip.below": "أجفّ من المعتاد",
  "precip.near-normal": "قريب من المعدل",
  "precip.above": "أكثر مطرًا من المعتاد",
  "precip.much-above": "أكثر مطرًا بكثير من المعتاد",
  "precip.record-high": "هطول قياسي",
  "value.none": "لا قيمة",
  "percentile": "المئين {p}",
  "percentile.none": "لا مئين (n = {n})",
  "dry.like": "جاف، مثل {share}٪ من الأيام",
  "grade.words": "{noun} {value} ({percentile}، {label})",
  "grade.ungraded": "{noun} {value} (بلا تقييم: {n} يومًا للمقارنة)",
  "grade.novalue": "{noun}: لا قيمة",
  "head.today": "{place} اليوم: {verdict}",
  "head.verdict": "{noun} {value}، {label}",
  "head.ordinary": "يوم عادي في مثل هذا الوقت من السنة",
  "head.nothing": "طقس اليوم مقارنةً بتاريخه",
  "head.title": "{headline} — {site}",
  "head.description": "{date} في {place}: {grades}. كل قيمة مقارنة بالأيام نفسها من السنة {since}.",
  "head.alt": "{place}، {date}: {grades}",
  "since.year": "في كل عام منذ {year}",
  "since.record": "في السجل",
  "card.footer": "مقارنة بالأيام نفسها من السنة {since} · ERA5 عبر Open-Meteo",
  "card.since": "منذ {year}",
  "message.alert": "{place}: {noun} {value} في {date}، {label} ({percentile}).",
  "message.footer": "Climate grade: {url}"
}

export const CATALOGS: Readonly<Record<Language, Catalog>> = { en, de, fr, es, pt, ja, ar }

/** The placeholders a message names, sorted. */
export const placeholders = (message: string): ReadonlyArray<string> =>
  [...new Set([...message.matchAll(/\{([a-zA-Z]+)\}/g)].map((m) => m[1]!))].sort()

/** A message in `lang` with its placeholders filled (English when the language lacks it). */
export const t = (lang: Language, key: Key, values: Readonly<Record<string, string | number>> = {}): string =>
  (CATALOGS[lang][key] ?? en[key]).replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole
  )

export const variableName = (lang: Language, v: Variable): string => t(lang, `variable.${v}`)
export const variableNoun = (lang: Language, v: Variable): string => t(lang, `noun.${v}`)
export const labelWords = (lang: Language, v: Variable, label: Label): string =>
  t(lang, v === "precip" ? `precip.${label}` : `label.${label}`)

const numberFormats = new Map<string, Intl.NumberFormat>()
const numberFormat = (lang: Language, digits: number) => {
  const key = `${lang}:${digits}`
  let f = numberFormats.get(key)
  if (f === undefined) {
    // Arabic as Intl's "ar" writes it: Latin digits, as the Arab weather services' pages print them.
    f = new Intl.NumberFormat(lang, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      useGrouping: false
    })
    numberFormats.set(key, f)
  }
  return f
}

/** A number in the language's way (decimal comma in de, fr, es, pt, ar), a real minus sign, never "−0,0". */
export const formatDecimal = (lang: Language, value: number, digits: number): string => {
  const rounded = Number(value.toFixed(digits))
  // The sign by hand: Intl puts a direction mark before Arabic's, and a real minus sign reads better.
  const text = numberFormat(lang, digits).format(Math.abs(rounded))
  return rounded < 0 ? `−${text}` : text
}

/** A percentile as the words print it: whole, except a tenth kept near 0 and 100 (not a record). */
export const formatPercentile = (lang: Language, p: number): string => {
  const rounded = Math.round(p)
  if (rounded === 0 && p > 0) return formatDecimal(lang, Math.max(0.1, p), 1)
  if (rounded === 100 && p < 100) return formatDecimal(lang, Math.min(99.9, p), 1)
  return formatDecimal(lang, rounded, 0)
}

/** "96th percentile", "96. Perzentil", "percentil 96"… (English's ordinal suffixes by Intl.PluralRules). */
const ordinalRules = new Intl.PluralRules("en", { type: "ordinal" })
const EN_SUFFIX: Readonly<Record<string, string>> = { one: "st", two: "nd", few: "rd", other: "th" }
export const percentileWords = (lang: Language, p: number): string => {
  const text = formatPercentile(lang, p)
  if (lang === "en") {
    const suffix = text.includes(".") ? "th" : EN_SUFFIX[ordinalRules.select(Number(text))]!
    return `${text}${suffix} percentile`
  }
  return t(lang, "percentile", { p: text })
}

const dateFormats = new Map<Language, Intl.DateTimeFormat>()
/** A civil date (YYYY-MM-DD) as the language writes it in full, with its weekday. */
export const longDate = (lang: Language, date: string): string => {
  let f = dateFormats.get(lang)
  if (f === undefined) {
    f = new Intl.DateTimeFormat(lang, {
      weekday: "short",
      day: "numeric",
      month: "long",
      year: "numeric",
      timeZone: "UTC"
    })
    dateFormats.set(lang, f)
  }
  const [y, m, d] = date.split("-").map(Number)
  return f.format(new Date(Date.UTC(y!, m! - 1, d!)))
}

/** A value in the chosen units with its unit, in the language's way ("31,2 °C"), or "no value" in words. */
export const formatValue = (lang: Language, value: number | null, unit: Unit, units: Units): string =>
  value === null
    ? t(lang, "value.none")
    : `${formatDecimal(lang, convert(value, unit, units), units === "imperial" && unit === "mm" ? 2 : 1)} ${unitSymbol(unit, units)}`
