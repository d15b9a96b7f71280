export * as Argon2 from "./Argon2.js"
export * as Random from "./Random.js"
