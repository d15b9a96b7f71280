/**
 * The page's own colours (the site's styles.css), for the card's frame. The colours of grades are
 * the core's (`Palette` in `@climate-grade/core/rules`), shared with the site.
 */
/** The page's own colours (styles.css `:root`, `.card`). */
export const PAGE = {
  ink: "#1a1a1a",
  muted: "#55554f",
  line: "#dcdcd5",
  background: "#f7f6f2",
  panel: "#fcfcfa",
  accent: "#1f2a44",
  record: "#67001f"
} as const
