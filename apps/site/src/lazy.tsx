/**
 * A component whose code is fetched when it is first drawn (a dynamic import, which esbuild splits
 * into a chunk of its own), so the first view pays only for what it shows. Until the code is there,
 * and if it cannot be fetched, `placeholder` stands in; the next mount tries again. The page's later
 * words (i18n/later/) come with the first such part.
 */
import { type ComponentChildren, type FunctionComponent, h } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { laterWords } from "./i18n/index.js"

export const lazy = <P extends object>(
  load: () => Promise<FunctionComponent<P>>,
  placeholder: (props: P) => ComponentChildren = () => null
): FunctionComponent<P> => {
  let loaded: FunctionComponent<P> | undefined
  let pending: Promise<FunctionComponent<P>> | undefined
  return (props: P) => {
    const [component, setComponent] = useState(() => loaded)
    useEffect(() => {
      if (component !== undefined) return
      let live = true
      pending ??= Promise.all([load(), laterWords()]).then(([c]) => {
        loaded = c
        return c
      })
      pending.then(
        (c) => live && setComponent(() => c),
        (error: unknown) => {
          pending = undefined
          console.warn("a part of the page could not be loaded", error)
        }
      )
      return () => {
        live = false
      }
    }, [component])
    return component === undefined ? placeholder(props) : h(component, props)
  }
}

/**
 * `children` once their place comes within 200 px of the viewport (or at once with `now`),
 * `placeholder` (which keeps their room) until then: what lies below the first screen costs the
 * first view nothing.
 */
export const WhenNear = ({ placeholder, now = false, children }: { placeholder: ComponentChildren; now?: boolean; children: ComponentChildren }) => {
  const ref = useRef<HTMLDivElement>(null)
  const [near, setNear] = useState(() => typeof IntersectionObserver === "undefined")
  // Once drawn it stays drawn, also when `now` turns false (a day's address left for today's).
  useEffect(() => {
    if (now && !near) setNear(true)
  }, [now, near])
  useEffect(() => {
    if (near || now || ref.current === null) return
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          observer.disconnect()
          setNear(true)
        }
      },
      { rootMargin: "200px 0px" }
    )
    observer.observe(ref.current)
    return () => observer.disconnect()
  }, [near, now])
  return (
    <div ref={ref} class="when-near">
      {near || now ? children : placeholder}
    </div>
  )
}
