/** Pruning ages (SPEC.md "Client behaviour": entries untouched for two weeks are pruned). */
export const MAX_IDLE_MS = 14 * 24 * 60 * 60 * 1000

/** Entries last accessed strictly before this instant are pruned. */
export const pruneBefore = (now: number): number => now - MAX_IDLE_MS

export const isExpired = (lastAccess: number, now: number): boolean => lastAccess < pruneBefore(now)
