/**
 * The geocoder's turns (core GeocoderQueue) as a property over random offers, takes, endings and
 * cancellations: labels and searches alternate while both wait, searches round robin by client and
 * in order within a client, at most the bound of one client's searches waiting or running, nothing
 * lost and nothing idle.
 */
import { describe, expect, it } from "@effect/vitest"
import { GeocoderQueue } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

const CLIENTS = ["a", "b", "c", "d"] as const

type Step =
  | { readonly _tag: "Offer"; readonly client: number | "label"; readonly count: number }
  | { readonly _tag: "Take" }
  | { readonly _tag: "Finish"; readonly which: number }
  | { readonly _tag: "Cancel"; readonly which: number }

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  // Offers come in bursts, client "a" most often: one client's burst is what the queue is for.
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Offer" as const),
      client: FastCheck.oneof(
        { arbitrary: FastCheck.constant(0), weight: 2 },
        { arbitrary: FastCheck.nat({ max: CLIENTS.length - 1 }), weight: 2 },
        { arbitrary: FastCheck.constant("label" as const), weight: 1 }
      ),
      count: FastCheck.integer({ min: 1, max: 4 })
    }),
    weight: 4
  },
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("Take" as const) }), weight: 4 },
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("Finish" as const), which: FastCheck.nat() }), weight: 4 },
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("Cancel" as const), which: FastCheck.nat() }), weight: 1 }
)

interface Item {
  readonly id: number
  readonly lane: GeocoderQueue.Lane
}

const clientOf = (item: Item) => (item.lane._tag === "Search" ? item.lane.client : undefined)

describe("GeocoderQueue", () => {
  it("labels and searches in turn; searches by client in turn and in order; at most the bound per client; nothing lost or left idle", () => {
    const seen = { refused: 0, labelsFirst: 0, searchesBetween: 0, turnsPassed: 0, cancelled: 0 }
    FastCheck.assert(
      FastCheck.property(FastCheck.integer({ min: 1, max: 4 }), FastCheck.array(stepArb, { minLength: 1, maxLength: 120, size: "max" }), (bound, steps) => {
        const queue = GeocoderQueue.make<Item>(bound)
        let next = 0
        // The model: what waits (in offer order), what runs; by client, the turn it was last served
        // and the turn since which it has been waiting without being served.
        let waiting: Array<Item> = []
        let running: Array<Item> = []
        const lastServed = new Map<string, number>()
        const waitingSince = new Map<string, number>()
        let turn = 0
        let lastWasLabel = false
        const waits = (client: string) => waiting.some((i) => clientOf(i) === client)
        for (const step of steps) {
          if (step._tag === "Offer") {
            for (let n = 0; n < step.count; n++) {
              const lane = step.client === "label" ? GeocoderQueue.LABEL : GeocoderQueue.search(CLIENTS[step.client]!)
              const item = { id: next++, lane }
              const client = clientOf(item)
              const held = [...waiting, ...running].filter((i) => client !== undefined && clientOf(i) === client).length
              const accepted = queue.offer(lane, item)
              // A label is always taken; a search exactly while its client holds fewer than the bound.
              expect(accepted).toBe(client === undefined || held < bound)
              if (!accepted) {
                seen.refused++
                continue
              }
              if (client !== undefined && !waits(client)) waitingSince.set(client, turn)
              waiting.push(item)
            }
          } else if (step._tag === "Take") {
            const item = queue.take()
            if (waiting.length === 0) {
              expect(item).toBeUndefined()
              continue
            }
            // Work-conserving: something waits, so something is given.
            expect(item).toBeDefined()
            const labels = waiting.filter((i) => i.lane._tag === "Label")
            const searches = waiting.some((i) => i.lane._tag === "Search")
            if (labels.length > 0 && (!searches || !lastWasLabel)) {
              // A label, in their order: ahead of every search unless the last turn was a label's.
              expect(item).toBe(labels[0])
              if (searches) seen.labelsFirst++
              lastWasLabel = true
            } else {
              // A search: none waits, or the last turn was a label's and searches wait too.
              if (labels.length > 0) seen.searchesBetween++
              lastWasLabel = false
              const client = clientOf(item!)!
              // A client's own searches in their order.
              expect(item).toBe(waiting.find((i) => clientOf(i) === client))
              // Round robin: a client is not served again while another has been waiting since
              // before its last turn without a turn of its own.
              const previous = lastServed.get(client)
              for (const [other, since] of waitingSince) {
                if (other === client || previous === undefined) continue
                expect(since > previous, `${client} served again at ${turn} while ${other} waits since ${since}`).toBe(true)
                seen.turnsPassed++
              }
              lastServed.set(client, turn)
            }
            waiting = waiting.filter((i) => i !== item)
            running.push(item!)
            const served = clientOf(item!)
            if (served !== undefined) {
              if (waits(served)) waitingSince.set(served, turn + 1)
              else waitingSince.delete(served)
            }
            turn++
          } else if (step._tag === "Finish" && running.length > 0) {
            const item = running[step.which % running.length]!
            running = running.filter((i) => i !== item)
            queue.finished(item.lane)
          } else if (step._tag === "Cancel" && waiting.length > 0) {
            const item = waiting[step.which % waiting.length]!
            expect(queue.cancel(item.lane, item)).toBe(true)
            // Cancelled twice, or once taken: not waiting.
            expect(queue.cancel(item.lane, item)).toBe(false)
            waiting = waiting.filter((i) => i !== item)
            const client = clientOf(item)
            if (client !== undefined && !waits(client)) waitingSince.delete(client)
            seen.cancelled++
          }
          expect(queue.waiting()).toBe(waiting.length)
        }
        // Everything still waiting comes out, each exactly once.
        const drained: Array<Item> = []
        for (let item = queue.take(); item !== undefined; item = queue.take()) drained.push(item)
        expect(drained.map((i) => i.id).sort((x, y) => x - y)).toEqual(waiting.map((i) => i.id).sort((x, y) => x - y))
      }),
      { numRuns: 400 }
    )
    // The runs exercised what they check: over 400 runs of up to 120 steps, about 8,000 refusals,
    // 1,400 labels taken before waiting searches and 1,200 searches between labels, 2,000
    // round-robin checks against another client waiting, 1,300 cancellations.
    expect(seen.refused).toBeGreaterThan(2_000)
    expect(seen.labelsFirst).toBeGreaterThan(300)
    expect(seen.searchesBetween).toBeGreaterThan(300)
    expect(seen.turnsPassed).toBeGreaterThan(400)
    expect(seen.cancelled).toBeGreaterThan(300)
  }, 120_000)

  it("one client's thirty searches: two more queue behind its first, the rest refused; another client and a label go before them; a flood of labels leaves searches every other turn", () => {
    const queue = GeocoderQueue.make<string>(3)
    const offered = Array.from({ length: 30 }, (_, i) => queue.offer(GeocoderQueue.search("burst"), `burst-${i}`))
    expect(offered.filter(Boolean)).toHaveLength(3)
    expect(queue.take()).toBe("burst-0")
    // Its next search ends after the one running and its own: two turns.
    expect(queue.turnsUntilFree("burst")).toBe(2)
    expect(queue.offer(GeocoderQueue.search("other"), "other-0")).toBe(true)
    expect(queue.offer(GeocoderQueue.LABEL, "label")).toBe(true)
    expect([queue.take(), queue.take(), queue.take(), queue.take()]).toEqual(["label", "burst-1", "other-0", "burst-2"])
    // Ended ones make room again.
    expect(queue.offer(GeocoderQueue.search("burst"), "burst-30")).toBe(false)
    queue.finished(GeocoderQueue.search("burst"))
    expect(queue.offer(GeocoderQueue.search("burst"), "burst-30")).toBe(true)
    for (const i of [1, 2, 3, 4]) queue.offer(GeocoderQueue.LABEL, `label-${i}`)
    expect([queue.take(), queue.take(), queue.take(), queue.take(), queue.take()]).toEqual([
      "label-1",
      "burst-30",
      "label-2",
      "label-3",
      "label-4"
    ])
  })

  it("the refusal's detail says the bound and when to try again", () => {
    expect(GeocoderQueue.detail(new GeocoderQueue.SearchesQueued({ limit: 3, retryAfterSeconds: 2 }))).toBe(
      "This client already has 3 place searches waiting for the geocoder; try again in 2 seconds."
    )
  })
})
