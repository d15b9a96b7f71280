/**
 * The rendered width of an element, kept current with a ResizeObserver (charts draw in real pixels
 * so text is never stretched). Read before the first paint (a layout effect), so a chart is never
 * painted at the fallback width: on a phone, a 600 px drawing in a 340 px column made the page
 * scroll sideways and then jump.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks"

export const useWidth = <E extends HTMLElement>(fallback: number) => {
  const ref = useRef<E>(null)
  const [width, setWidth] = useState(fallback)
  useLayoutEffect(() => {
    const el = ref.current
    if (el === null) return
    setWidth(el.clientWidth || fallback)
    if (typeof ResizeObserver === "undefined") return
    const observer = new ResizeObserver((entries) => {
      const w = Math.round(entries[0]?.contentRect.width ?? 0)
      if (w > 0) setWidth(w)
    })
    observer.observe(el)
    return () => observer.disconnect()
  }, [fallback])
  return [ref, width] as const
}
