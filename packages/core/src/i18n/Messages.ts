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
import { convert, longDate as englishLongDate, type Unit, type Units, unitSymbol } from "../words/Words.js"
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
  "message.daily": "{alert} for {place} on {date}: {noun} {value}, {label} for this place and time of year ({percentile}). {url}",
  "message.daily.record": "{alert} for {place} on {date}: {noun} {value}, {record} for this place and time of year. {url}",
  "message.spell": "{alert} for {place}: {severity}, from {date}. {standing} {url}",
  "alert.heat": "Heat alert",
  "alert.cold": "Cold alert",
  "alert.wet": "Heavy rain alert",
  "alert.heatwave": "Heat wave alert",
  "alert.coldspell": "Cold spell alert",
  "message.noun.tmax": "high temperature",
  "message.noun.tmin": "low temperature",
  "message.noun.precip": "precipitation",
  "message.record-high": "a record high",
  "message.record-low": "a record low",
  "message.record-wet": "a record wet day",
  "severity.low": "low",
  "severity.severe": "severe",
  "severity.extreme": "extreme",
  "rank": "{n}th",
  "standing.heat.first": "It is the hottest heat wave here since {year}.",
  "standing.heat.first.forecast": "It would be the hottest heat wave here since {year} if the forecast holds.",
  "standing.heat.nth": "It is the {rank} hottest heat wave here since {year}.",
  "standing.heat.nth.forecast": "It would be the {rank} hottest heat wave here since {year} if the forecast holds.",
  "standing.cold.first": "It is the coldest cold spell here since {year}.",
  "standing.cold.first.forecast": "It would be the coldest cold spell here since {year} if the forecast holds.",
  "standing.cold.nth": "It is the {rank} coldest cold spell here since {year}.",
  "standing.cold.nth.forecast": "It would be the {rank} coldest cold spell here since {year} if the forecast holds."
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
  "message.daily": "{alert} für {place} am {date}: {noun} {value}, {label} für diesen Ort und diese Jahreszeit ({percentile}). {url}",
  "message.daily.record": "{alert} für {place} am {date}: {noun} {value}, {record} für diesen Ort und diese Jahreszeit. {url}",
  "message.spell": "{alert} für {place}: {severity}, ab {date}. {standing} {url}",
  "alert.heat": "Hitzewarnung",
  "alert.cold": "Kältewarnung",
  "alert.wet": "Starkregenwarnung",
  "alert.heatwave": "Hitzewellenwarnung",
  "alert.coldspell": "Kältewellenwarnung",
  "message.noun.tmax": "Höchsttemperatur",
  "message.noun.tmin": "Tiefsttemperatur",
  "message.noun.precip": "Niederschlag",
  "message.record-high": "ein Rekordhoch",
  "message.record-low": "ein Rekordtief",
  "message.record-wet": "ein Rekord an Niederschlag",
  "severity.low": "schwach",
  "severity.severe": "stark",
  "severity.extreme": "extrem",
  "rank": "{n}",
  "standing.heat.first": "Sie ist die heißeste Hitzewelle hier seit {year}.",
  "standing.heat.first.forecast": "Sie wäre die heißeste Hitzewelle hier seit {year}, wenn die Vorhersage eintrifft.",
  "standing.heat.nth": "Sie steht auf Platz {rank} der heißesten Hitzewellen hier seit {year}.",
  "standing.heat.nth.forecast": "Sie stünde auf Platz {rank} der heißesten Hitzewellen hier seit {year}, wenn die Vorhersage eintrifft.",
  "standing.cold.first": "Sie ist die kälteste Kältewelle hier seit {year}.",
  "standing.cold.first.forecast": "Sie wäre die kälteste Kältewelle hier seit {year}, wenn die Vorhersage eintrifft.",
  "standing.cold.nth": "Sie steht auf Platz {rank} der kältesten Kältewellen hier seit {year}.",
  "standing.cold.nth.forecast": "Sie stünde auf Platz {rank} der kältesten Kältewellen hier seit {year}, wenn die Vorhersage eintrifft."
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
  "message.daily": "{alert} pour {place} le {date} : {noun} {value}, {label} pour ce lieu et cette période de l'année ({percentile}). {url}",
  "message.daily.record": "{alert} pour {place} le {date} : {noun} {value}, {record} pour ce lieu et cette période de l'année. {url}",
  "message.spell": "{alert} pour {place} : intensité {severity}, à partir du {date}. {standing} {url}",
  "alert.heat": "Alerte chaleur",
  "alert.cold": "Alerte froid",
  "alert.wet": "Alerte fortes pluies",
  "alert.heatwave": "Alerte canicule",
  "alert.coldspell": "Alerte vague de froid",
  "message.noun.tmax": "maximum",
  "message.noun.tmin": "minimum",
  "message.noun.precip": "cumul de pluie",
  "message.record-high": "un record à la hausse",
  "message.record-low": "un record à la baisse",
  "message.record-wet": "un record de pluie",
  "severity.low": "faible",
  "severity.severe": "forte",
  "severity.extreme": "extrême",
  "rank": "{n}e",
  "standing.heat.first": "C'est la vague de chaleur la plus chaude ici depuis {year}.",
  "standing.heat.first.forecast": "Ce serait la vague de chaleur la plus chaude ici depuis {year} si la prévision se confirme.",
  "standing.heat.nth": "Elle se classe au {rank} rang des vagues de chaleur les plus chaudes ici depuis {year}.",
  "standing.heat.nth.forecast": "Elle se classerait au {rank} rang des vagues de chaleur les plus chaudes ici depuis {year} si la prévision se confirme.",
  "standing.cold.first": "C'est la vague de froid la plus froide ici depuis {year}.",
  "standing.cold.first.forecast": "Ce serait la vague de froid la plus froide ici depuis {year} si la prévision se confirme.",
  "standing.cold.nth": "Elle se classe au {rank} rang des vagues de froid les plus froides ici depuis {year}.",
  "standing.cold.nth.forecast": "Elle se classerait au {rank} rang des vagues de froid les plus froides ici depuis {year} si la prévision se confirme."
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
  "message.daily": "{alert} para {place} el {date}: {noun} {value}, {label} para este lugar y época del año ({percentile}). {url}",
  "message.daily.record": "{alert} para {place} el {date}: {noun} {value}, {record} para este lugar y época del año. {url}",
  "message.spell": "{alert} para {place}: {severity}, desde el {date}. {standing} {url}",
  "alert.heat": "Aviso por calor",
  "alert.cold": "Aviso por frío",
  "alert.wet": "Aviso por lluvias intensas",
  "alert.heatwave": "Aviso por ola de calor",
  "alert.coldspell": "Aviso por ola de frío",
  "message.noun.tmax": "temperatura máxima",
  "message.noun.tmin": "temperatura mínima",
  "message.noun.precip": "acumulado de lluvia",
  "message.record-high": "un máximo récord",
  "message.record-low": "un mínimo récord",
  "message.record-wet": "un récord de lluvia",
  "severity.low": "leve",
  "severity.severe": "severa",
  "severity.extreme": "extrema",
  "rank": "{n}.ª",
  "standing.heat.first": "Es la ola de calor más calurosa aquí desde {year}.",
  "standing.heat.first.forecast": "Sería la ola de calor más calurosa aquí desde {year} si se cumple el pronóstico.",
  "standing.heat.nth": "Es la {rank} ola de calor más calurosa aquí desde {year}.",
  "standing.heat.nth.forecast": "Sería la {rank} ola de calor más calurosa aquí desde {year} si se cumple el pronóstico.",
  "standing.cold.first": "Es la ola de frío más fría aquí desde {year}.",
  "standing.cold.first.forecast": "Sería la ola de frío más fría aquí desde {year} si se cumple el pronóstico.",
  "standing.cold.nth": "Es la {rank} ola de frío más fría aquí desde {year}.",
  "standing.cold.nth.forecast": "Sería la {rank} ola de frío más fría aquí desde {year} si se cumple el pronóstico."
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
  "message.daily": "{alert} para {place} em {date}: {noun} {value}, {label} para este local e época do ano ({percentile}). {url}",
  "message.daily.record": "{alert} para {place} em {date}: {noun} {value}, {record} para este local e época do ano. {url}",
  "message.spell": "{alert} para {place}: {severity}, a partir de {date}. {standing} {url}",
  "alert.heat": "Aviso de calor",
  "alert.cold": "Aviso de frio",
  "alert.wet": "Aviso de chuva forte",
  "alert.heatwave": "Aviso de onda de calor",
  "alert.coldspell": "Aviso de vaga de frio",
  "message.noun.tmax": "temperatura máxima",
  "message.noun.tmin": "temperatura mínima",
  "message.noun.precip": "total de precipitação",
  "message.record-high": "um máximo recorde",
  "message.record-low": "um mínimo recorde",
  "message.record-wet": "um recorde de chuva",
  "severity.low": "fraca",
  "severity.severe": "severa",
  "severity.extreme": "extrema",
  "rank": "{n}.ª",
  "standing.heat.first": "É a onda de calor mais quente aqui desde {year}.",
  "standing.heat.first.forecast": "Seria a onda de calor mais quente aqui desde {year}, se a previsão se confirmar.",
  "standing.heat.nth": "É a {rank} onda de calor mais quente aqui desde {year}.",
  "standing.heat.nth.forecast": "Seria a {rank} onda de calor mais quente aqui desde {year}, se a previsão se confirmar.",
  "standing.cold.first": "É a vaga de frio mais fria aqui desde {year}.",
  "standing.cold.first.forecast": "Seria a vaga de frio mais fria aqui desde {year}, se a previsão se confirmar.",
  "standing.cold.nth": "É a {rank} vaga de frio mais fria aqui desde {year}.",
  "standing.cold.nth.forecast": "Seria a {rank} vaga de frio mais fria aqui desde {year}, se a previsão se confirmar."
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
  "message.daily": "{alert}：{place}、{date}の{noun}は{value}。この場所・この時季としては{label}（{percentile}）。{url}",
  "message.daily.record": "{alert}：{place}、{date}の{noun}は{value}。この場所・この時季としては{record}。{url}",
  "message.spell": "{alert}：{place}、{date}から（強さ：{severity}）。{standing}{url}",
  "alert.heat": "高温のお知らせ",
  "alert.cold": "低温のお知らせ",
  "alert.wet": "大雨のお知らせ",
  "alert.heatwave": "熱波のお知らせ",
  "alert.coldspell": "寒波のお知らせ",
  "message.noun.tmax": "最高気温",
  "message.noun.tmin": "最低気温",
  "message.noun.precip": "降水量",
  "message.record-high": "記録的な高さ",
  "message.record-low": "記録的な低さ",
  "message.record-wet": "記録的な多さ",
  "severity.low": "弱い",
  "severity.severe": "強い",
  "severity.extreme": "非常に強い",
  "rank": "{n}",
  "standing.heat.first": "{year}年以降、ここで最も暑い熱波です。",
  "standing.heat.first.forecast": "予報どおりなら、{year}年以降ここで最も暑い熱波になります。",
  "standing.heat.nth": "{year}年以降、ここで{rank}番目に暑い熱波です。",
  "standing.heat.nth.forecast": "予報どおりなら、{year}年以降ここで{rank}番目に暑い熱波になります。",
  "standing.cold.first": "{year}年以降、ここで最も寒い寒波です。",
  "standing.cold.first.forecast": "予報どおりなら、{year}年以降ここで最も寒い寒波になります。",
  "standing.cold.nth": "{year}年以降、ここで{rank}番目に寒い寒波です。",
  "standing.cold.nth.forecast": "予報どおりなら、{year}年以降ここで{rank}番目に寒い寒波になります。"
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
  "message.daily": "{alert} في {place} يوم {date}: {noun} {value}، {label} بالنسبة لهذا المكان وهذا الوقت من السنة ({percentile}). {url}",
  "message.daily.record": "{alert} في {place} يوم {date}: {noun} {value}، {record} بالنسبة لهذا المكان وهذا الوقت من السنة. {url}",
  "message.spell": "{alert} في {place}: {severity}، ابتداءً من {date}. {standing} {url}",
  "alert.heat": "تنبيه حرارة مرتفعة",
  "alert.cold": "تنبيه برودة",
  "alert.wet": "تنبيه أمطار غزيرة",
  "alert.heatwave": "تنبيه موجة حر",
  "alert.coldspell": "تنبيه موجة برد",
  "message.noun.tmax": "درجة الحرارة العظمى",
  "message.noun.tmin": "درجة الحرارة الصغرى",
  "message.noun.precip": "كمية الهطول",
  "message.record-high": "أعلى مستوى قياسي",
  "message.record-low": "أدنى مستوى قياسي",
  "message.record-wet": "هطول قياسي",
  "severity.low": "ضعيفة",
  "severity.severe": "شديدة",
  "severity.extreme": "شديدة جدًا",
  "rank": "{n}",
  "standing.heat.first": "إنها أشد موجة حر هنا منذ {year}.",
  "standing.heat.first.forecast": "ستكون أشد موجة حر هنا منذ {year} إذا صدقت التوقعات.",
  "standing.heat.nth": "إنها في المرتبة {rank} بين أشد موجات الحر هنا منذ {year}.",
  "standing.heat.nth.forecast": "ستكون في المرتبة {rank} بين أشد موجات الحر هنا منذ {year} إذا صدقت التوقعات.",
  "standing.cold.first": "إنها أشد موجة برد هنا منذ {year}.",
  "standing.cold.first.forecast": "ستكون أشد موجة برد هنا منذ {year} إذا صدقت التوقعات.",
  "standing.cold.nth": "إنها في المرتبة {rank} بين أشد موجات البرد هنا منذ {year}.",
  "standing.cold.nth.forecast": "ستكون في المرتبة {rank} بين أشد موجات البرد هنا منذ {year} إذا صدقت التوقعات."
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
/**
 * A civil date (YYYY-MM-DD) as the language writes it in full, with its weekday; English as the
 * pages write it ("Tue 14 July 2026"), neither Intl's American nor its British order with commas.
 */
export const longDate = (lang: Language, date: string): string => {
  if (lang === "en") return englishLongDate(date)
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
