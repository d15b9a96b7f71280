/** One titled panel of the main page. */
import type { ComponentChildren } from "preact"

export const Section = ({ id, title, children, intro }: { id: string; title: string; intro?: ComponentChildren; children: ComponentChildren }) => (
  <section class="panel" aria-labelledby={`${id}-title`} id={id}>
    <h2 id={`${id}-title`}>{title}</h2>
    {intro !== undefined && <p class="intro">{intro}</p>}
    {children}
  </section>
)
