import type { User } from "../accounts/Domain.js"
import { sha256Hex } from "../Crypto.js"

/** Who gets direct messages: an active user whose chat is linked and who has not muted them. */
export const deliverable = (user: User): user is User & { readonly chatId: string } =>
  user.isActive && user.chatId !== null && user.chatDm

/** The longest nonce the chat provider takes (Discord: 25 characters). */
export const NONCE_LENGTH = 25

/**
 * The nonce a message is sent with, the same on every attempt: derived from its alert (a random
 * uuid, one per outbox row), so a resend after a crash is recognised by the provider, which with
 * `enforce_nonce` answers with the message it already made instead of a second one. Hashed, so it
 * fits the provider's length and says nothing about the row; 100 bits, so two alerts' never meet.
 */
export const nonce = (alertId: string): string => sha256Hex(`alert-message|${alertId}`).slice(0, NONCE_LENGTH)
