import * as Schema from "effect/Schema"
import { LANGUAGES } from "../i18n/Languages.js"

export const UserId = Schema.UUID.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const ProviderName = Schema.Literal("chat", "idp")
export type ProviderName = typeof ProviderName.Type

/** A language the messages speak (the core's i18n). */
export const UserLanguage = Schema.Literal(...LANGUAGES)

/** The units a user picked on the site: metric (°C, mm) or imperial (°F, in). */
export const UserUnits = Schema.Literal("metric", "imperial")

/**
 * How a user's direct messages speak: the language of the page they last signed in from, and the
 * units they last picked on the site (null: not known, English and metric).
 */
export interface Voice {
  readonly language: typeof UserLanguage.Type | null
  readonly units: typeof UserUnits.Type | null
}

export class User extends Schema.Class<User>("User")({
  id: UserId,
  email: Schema.String,
  hashedPassword: Schema.String,
  isActive: Schema.Boolean,
  isSuperuser: Schema.Boolean,
  isVerified: Schema.Boolean,
  oauthOnly: Schema.Boolean,
  chatId: Schema.NullOr(Schema.String),
  chatDm: Schema.Boolean,
  language: Schema.optionalWith(Schema.NullOr(UserLanguage), { default: () => null }),
  units: Schema.optionalWith(Schema.NullOr(UserUnits), { default: () => null })
}) {}

/** One provider identity bound to one user. */
export class OAuthLink extends Schema.Class<OAuthLink>("OAuthLink")({
  userId: UserId,
  provider: ProviderName,
  subject: Schema.String,
  email: Schema.NullOr(Schema.String)
}) {}

/** What it takes to create a user; the id is the repository's. */
export interface NewUser {
  readonly email: string
  readonly hashedPassword: string
  readonly isActive: boolean
  readonly isSuperuser: boolean
  readonly isVerified: boolean
  readonly oauthOnly: boolean
}

/** Another account already has this e-mail address (case-insensitively). */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", { email: Schema.String }) {}

/**
 * A link violates one of the two uniqueness rules: `subject` when (provider, subject)
 * is owned already, `user-provider` when the user has a link for this provider already.
 */
export class LinkConflict extends Schema.TaggedError<LinkConflict>()("LinkConflict", {
  constraint: Schema.Literal("subject", "user-provider")
}) {}

/** A session as issued: the token is shown once, to the browser, and stored only as its hash. */
export interface IssuedSession {
  readonly token: string
  readonly expiresAt: Date
}

/** How long a session lives (the cookie's Max-Age: 30 days). */
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60

/**
 * The longest e-mail address any account may have: 254 characters, the most that fits SMTP's
 * path (RFC 5321, 256 octets with the angle brackets). Longer text names no mailbox.
 */
export const MAX_EMAIL_LENGTH = 254
