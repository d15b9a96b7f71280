/**
 * A component whose code is fetched when it is first drawn (a dynamic import, which esbuild splits
 * into a chunk of its own), so the first view pays only for what it shows. Until the code is there,
 * and if it cannot be fetched, `placeholder` stands in; the next mount tries again.
 */
import { type ComponentChildren, type FunctionComponent, h } from "preact"
import { useEffect, useState } from "preact/hooks"

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
