/** Benchmarks (`vitest bench`), apart from the test suite's configuration and its global set-up. */
import { defineConfig } from "vitest/config"

export default defineConfig({
  // The workspace's packages from their sources (see the test configuration).
  resolve: { conditions: ["source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["source", "module", "node", "development|production"], externalConditions: ["source"] } },
  test: {
    benchmark: { include: ["**/*.bench.ts"] }
  }
})
