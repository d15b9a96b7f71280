/** Where the numbers come from and how to read them, in the page's language (its later words). */
import { formatCoordinates, formatStamp, isDemo, longDate } from "../format.js"
import { around, w } from "../i18n/later.js"
import type { Cell } from "../payloads.js"

const issuedWords = (issued: string | null): string => {
  if (issued === null) return w("prov.issued.none")
  const t = Date.parse(issued)
  if (!Number.isFinite(t)) return issued
  return formatStamp(t, "UTC")
}

const OpenMeteo = () => (
  <a href="https://open-meteo.com/" rel="noopener">
    Open-Meteo
  </a>
)

const Osm = () => (
  <a href="https://www.openstreetmap.org/copyright" rel="noopener">
    OpenStreetMap
  </a>
)

export const Provenance = ({
  cell,
  recordEnd,
  sinceYear,
  n,
  issued
}: {
  cell: Cell
  recordEnd: string | null
  sinceYear: number | null
  n: number | null
  issued: string | null
}) => {
  const [beforeOpenMeteo, afterOpenMeteo] = around("prov.source.era5", "openmeteo")
  const [beforeOsm, afterOsm] = around("prov.name.credit", "osm")
  return (
    <div class="provenance">
      <dl class="facts">
        <div>
          <dt>{w("prov.source")}</dt>
          {isDemo() ? (
            <dd>{w("prov.source.demo")}</dd>
          ) : (
            <dd>
              {beforeOpenMeteo}
              <OpenMeteo />
              {afterOpenMeteo}
            </dd>
          )}
        </div>
        <div>
          <dt>{w("prov.years")}</dt>
          <dd>
            {sinceYear === null ? w("prov.years.unknown") : w("prov.years.since", { year: sinceYear })}
            {recordEnd === null ? "" : w("prov.years.until", { date: longDate(recordEnd) })}
            {isDemo() ? "" : w("prov.years.behind")}
          </dd>
        </div>
        <div>
          <dt>{w("prov.cell")}</dt>
          <dd>{w("prov.cell.square", { coordinates: formatCoordinates(cell.lat, cell.lon) })}</dd>
        </div>
        <div>
          <dt>{w("prov.zone")}</dt>
          <dd>{w("prov.zone.days", { zone: cell.timezone })}</dd>
        </div>
        <div>
          <dt>{w("prov.issued")}</dt>
          <dd>{issuedWords(issued)}</dd>
        </div>
        <div>
          <dt>{w("prov.name")}</dt>
          <dd>
            {cell.label ?? w("prov.name.unknown")} {beforeOsm}
            <Osm />
            {afterOsm}
          </dd>
        </div>
      </dl>
      <h3>{w("prov.reading")}</h3>
      <ul class="reading">
        <li>
          {w("prov.reading.compared")}
          {n === null ? "" : ` ${w("prov.reading.today", { n })}`}
        </li>
        <li>{w("prov.reading.percentile")}</li>
        <li>{w("prov.reading.ties")}</li>
        <li>{w("prov.reading.few")}</li>
      </ul>
    </div>
  )
}
