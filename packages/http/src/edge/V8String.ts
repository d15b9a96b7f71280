/**
 * How V8 holds a string, for what the service keeps for long (the response index's keys and
 * loggable paths): what one weighs, and a copy that keeps nothing else alive.
 */

/** Characters beyond Latin-1: a string holding one is stored with two bytes a character. */
const TWO_BYTE = /[\u0100-\uffff]/

/**
 * A flat string's bytes (64-bit, no pointer compression: Node's builds): a 16-byte header, then
 * one byte a character when every character fits in Latin-1 (a URL from Node's parser always
 * does: it decodes the request line as Latin-1), else two; a multiple of 8.
 */
export const bytes = (s: string): number => (16 + (TWO_BYTE.test(s) ? 2 * s.length : s.length) + 7) & ~7

/**
 * `s` in storage of its own. V8 makes a piece cut from a string (`slice`, `split`: 13 characters
 * or more) a view that keeps the whole string alive, and a concatenation a pair that keeps both
 * halves: what outlives a request must not keep the client's URL (up to 16 KB) it was cut from.
 * Shorter strings are always copies.
 */
export const ownCopy = (s: string): string => (s.length < 13 ? s : Buffer.from(s, "utf16le").toString("utf16le"))
