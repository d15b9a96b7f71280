/**
 * The words a page's HTML holds before its script runs, per language: the server writes them into
 * the built page it serves (the page's script draws everything else in the chosen language).
 * Browser-safe: no IO, no `effect`, no Node built-in.
 */
import type { Language } from "./Languages.js"

/** What a browser without JavaScript shows in place of the page (the built page's own text is the English). */
export const NOSCRIPT: Readonly<Record<Language, string>> = {
  en: "This page needs JavaScript to draw its charts. The data is also available from the API under api/v2.",
  de: "Diese Seite braucht JavaScript, um ihre Diagramme zu zeichnen. Die Daten gibt es auch über die API unter api/v2.",
  fr: "Cette page a besoin de JavaScript pour dessiner ses graphiques. Les données sont aussi disponibles via l'API sous api/v2.",
  es: "Esta página necesita JavaScript para dibujar sus gráficos. Los datos también están disponibles en la API, en api/v2.",
  pt: "Esta página precisa de JavaScript para desenhar os gráficos. Os dados também estão disponíveis na API, em api/v2.",
  ja: "このページのグラフを表示するには JavaScript が必要です。データは API（api/v2）からも取得できます。",
  ar: "تحتاج هذه الصفحة إلى JavaScript لرسم مخططاتها. البيانات متاحة أيضًا عبر واجهة API في api/v2."
}
