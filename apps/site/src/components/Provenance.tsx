/** Where the numbers come from and how to read them. */
import { formatCoordinates, formatStamp, isDemo, longDate } from "../format.js"
import type { Cell } from "../payloads.js"

const issuedWords = (issued: string | null): string => {
  if (issued === null) return "not available"
  const t = Date.parse(issued)
  if (!Number.isFinite(t)) return issued
  return formatStamp(t, "UTC")
}

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
}) => (
  <div class="provenance">
    <dl class="facts">
      <div>
        <dt>Source</dt>
        {isDemo() ? (
          <dd>Made up by the demo on this computer, in the shape ERA5 via Open-Meteo would have: no real weather</dd>
        ) : (
          <dd>
            ERA5 reanalysis (ECMWF, Copernicus) via{" "}
            <a href="https://open-meteo.com/" rel="noopener">
              Open-Meteo
            </a>
            ; the forecast from Open-Meteo's forecast models
          </dd>
        )}
      </div>
      <div>
        <dt>Years held</dt>
        <dd>
          {sinceYear === null ? "unknown" : `${sinceYear} onwards`}
          {recordEnd === null ? "" : `, up to ${longDate(recordEnd)}`}
          {isDemo() ? "" : " (ERA5 runs a few days behind)"}
        </dd>
      </div>
      <div>
        <dt>Cell</dt>
        <dd>
          {formatCoordinates(cell.lat, cell.lon)}: a 0.25° square, about 28 km north to south, that every point inside
          shares
        </dd>
      </div>
      <div>
        <dt>Time zone</dt>
        <dd>{cell.timezone}: days run midnight to midnight there</dd>
      </div>
      <div>
        <dt>Forecast issued</dt>
        <dd>{issuedWords(issued)}</dd>
      </div>
      <div>
        <dt>Place name</dt>
        <dd>
          {cell.label ?? "not known yet"} (©{" "}
          <a href="https://www.openstreetmap.org/copyright" rel="noopener">
            OpenStreetMap
          </a>{" "}
          contributors)
        </dd>
      </div>
    </dl>
    <h3>How to read the grades</h3>
    <ul class="reading">
      <li>
        A day is compared with the same date and the two days either side of it in every other year of the record
        {n === null ? "" : ` — for today that is n = ${n} days`}. <strong>n</strong> is the number of days compared.
      </li>
      <li>
        The <strong>percentile</strong> says where the day falls among them: the 96th percentile means at least as warm
        (or wet) as 96% of them. 10 to 90 is the usual range; a <strong>record</strong> beats every day compared.
      </li>
      <li>
        Days with the same value count half below and half above. When many share it (most often a dry day, where
        many days were dry too) the page says so instead: "dry, like 69% of days around this date".
      </li>
      <li>
        With fewer than 30 days to compare (n &lt; 30) a percentile would mislead, so none is given: the value is
        shown without a grade.
      </li>
    </ul>
  </div>
)
