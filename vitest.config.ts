import { defineConfig } from "vitest/config"

// The workspace's packages are read from their sources (the `source` export condition), never from a
// built dist/ that may be stale; dist/ is what a package's tarball carries.
const SOURCE = ["source"]
// Vite's own defaults, which a list given here replaces.
const CLIENT = ["module", "browser", "development|production"]
const SERVER = ["module", "node", "development|production"]

export default defineConfig({
  resolve: { conditions: [...SOURCE, ...CLIENT] },
  ssr: { resolve: { conditions: [...SOURCE, ...SERVER], externalConditions: SOURCE } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
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
