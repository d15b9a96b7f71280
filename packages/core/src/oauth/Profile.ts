import type { ProviderDescriptor } from "./Providers.js"

/** A provider profile reduced to what the rules use (SPEC.md "Profile parsing"). */
export interface ParsedProfile {
  /** The id field as a string; empty when missing. */
  readonly subject: string
  /** Trimmed and lower-cased; empty when missing. */
  readonly email: string
  readonly verified: boolean
}

/**
 * A string or number field as a string; "" otherwise. A value with a NUL character counts as
 * missing: no stored text can hold it (PostgreSQL refuses it), so it can name no identity or address.
 */
const asString = (value: unknown): string => {
  const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "bigint" ? String(value) : ""
  return text.includes("\0") ? "" : text
}

export const parse = (descriptor: ProviderDescriptor, profile: Readonly<Record<string, unknown>>): ParsedProfile => ({
  subject: asString(profile[descriptor.idField]),
  email: asString(profile[descriptor.emailField]).trim().toLowerCase(),
  verified: descriptor.verified(profile)
})
