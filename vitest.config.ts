import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    // Two cores: more workers than that only adds contention on the database.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { hooks: "stack" },
    // Prints a banner at the end of the run when the PostgreSQL half did not run.
    globalSetup: ["./vitest.global.ts"]
  }
})
