import { describe, expect, it } from "@effect/vitest"
import { authorizeLocation } from "../src/api/OAuthHttp.js"

describe("OAuthHttp.authorizeLocation", () => {
  it("is the configured endpoint, its own query kept, with the core's parameters set in the core's order", () => {
    const location = authorizeLocation("https://provider.example/authorize?tenant=1&prompt=none", {
      client_id: "client",
      redirect_uri: "https://cg.example/api/v2/oauth/idp/callback",
      scope: "openid email",
      prompt: "consent"
    })
    expect(location).toBe(
      "https://provider.example/authorize?tenant=1&prompt=consent&client_id=client" +
        "&redirect_uri=https%3A%2F%2Fcg.example%2Fapi%2Fv2%2Foauth%2Fidp%2Fcallback&scope=openid+email"
    )
  })
})
