import { MAX_EMAIL_LENGTH } from "../accounts/Domain.js"
import * as StorableText from "../StorableText.js"
import type { ProviderDescriptor } from "./Providers.js"

/** A provider profile reduced to what the rules use. */
export interface ParsedProfile {
  /** The id field as a string; empty when missing. */
  readonly subject: string
  /** Trimmed and lower-cased; empty when missing. */
  readonly email: string
  readonly verified: boolean
}

/**
 * A string or number field as a string; "" otherwise. A value that cannot be stored as it is (a
 * NUL character, an unpaired surrogate: `StorableText`) counts as missing, so it can name no
 * identity or address.
 */
const asString = (value: unknown): string => {
  const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "bigint" ? String(value) : ""
  return StorableText.isStorable(text) ? text : ""
}

/** An address longer than any account may have (`MAX_EMAIL_LENGTH`) counts as missing too. */
const asEmail = (value: unknown): string => {
  const email = asString(value).trim().toLowerCase()
  return email.length > MAX_EMAIL_LENGTH ? "" : email
}

export const parse = (descriptor: ProviderDescriptor, profile: Readonly<Record<string, unknown>>): ParsedProfile => ({
  subject: asString(profile[descriptor.idField]),
  email: asEmail(profile[descriptor.emailField]),
  verified: descriptor.verified(profile)
})
