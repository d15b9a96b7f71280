/**
 * A component whose code is fetched when it is first drawn (a dynamic import, which esbuild splits
 * into a chunk of its own), so the first view pays only for what it shows. Until the code is there,
 * and if it cannot be fetched, `placeholder` stands in; the next mount tries again.
 */
import { type ComponentChildren, type FunctionComponent, h } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"

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
      pending ??= load().then((c) => {
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
 * `children` once their place comes within 200 px of the viewport, `placeholder` (which keeps
 * their room) until then: what lies below the first screen costs the first view nothing.
 */
export const WhenNear = ({ placeholder, children }: { placeholder: ComponentChildren; children: ComponentChildren }) => {
  const ref = useRef<HTMLDivElement>(null)
  const [near, setNear] = useState(() => typeof IntersectionObserver === "undefined")
  useEffect(() => {
    if (near || ref.current === null) return
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
  }, [near])
  return (
    <div ref={ref} class="when-near">
      {near ? children : placeholder}
    </div>
  )
}
