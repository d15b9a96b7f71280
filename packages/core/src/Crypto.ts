/**
 * Pure hashing helpers over @noble/hashes (audited, no IO, runs anywhere), so the
 * core can sign and hash without importing `node:crypto`.
 */
import { hmac } from "@noble/hashes/hmac"
import { sha256 as nobleSha256 } from "@noble/hashes/sha2"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils"
import * as Encoding from "effect/Encoding"

const bytes = (input: string | Uint8Array): Uint8Array => (typeof input === "string" ? utf8ToBytes(input) : input)

export const sha256 = (input: string | Uint8Array): Uint8Array => nobleSha256(bytes(input))

export const sha256Hex = (input: string | Uint8Array): string => bytesToHex(sha256(input))

/**
 * The one recipe for a content token: the first 32 hex characters (128 bits) of SHA-256 of the
 * bytes or text. ETags (of payloads, pages, site files, cards) and freshness tokens are made with
 * it, and so is the sign-in binding of a state to its browser (CONTRACT's "first 32 hex").
 */
export const contentToken = (input: string | Uint8Array): string => sha256Hex(input).slice(0, 32)

export const hmacSha256 = (key: string | Uint8Array, message: string | Uint8Array): Uint8Array =>
  hmac(nobleSha256, bytes(key), bytes(message))

export const hmacSha256Hex = (key: string | Uint8Array, message: string | Uint8Array): string =>
  bytesToHex(hmacSha256(key, message))

/** URL-safe base64 without padding. */
export const base64Url = (input: string | Uint8Array): string => Encoding.encodeBase64Url(input)

/** Compares two strings in time that depends only on their lengths. */
export const constantTimeEqual = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i % (a.length || 1)) | 0) ^ (b.charCodeAt(i % (b.length || 1)) | 0)
  return diff === 0
}
