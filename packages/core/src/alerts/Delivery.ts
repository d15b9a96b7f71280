import type { User } from "../accounts/Domain.js"

/** Who gets direct messages: an active user whose chat is linked and who has not muted them. */
export const deliverable = (user: User): user is User & { readonly chatId: string } =>
  user.isActive && user.chatId !== null && user.chatDm
