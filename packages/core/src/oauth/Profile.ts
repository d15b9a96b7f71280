import type { ProviderDescriptor } from "./Providers.js"

/** A provider profile reduced to what the rules use (SPEC.md "Profile parsing"). */
export interface ParsedProfile {
  /** The id field as a string; empty when missing. */
  readonly subject: string
  /** Trimmed and lower-cased; empty when missing. */
  readonly email: string
  readonly verified: boolean
}

const asString = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" || typeof value === "bigint" ? String(value) : ""

export const parse = (descriptor: ProviderDescriptor, profile: Readonly<Record<string, unknown>>): ParsedProfile => ({
  subject: asString(profile[descriptor.idField]),
  email: asString(profile[descriptor.emailField]).trim().toLowerCase(),
  verified: descriptor.verified(profile)
})
