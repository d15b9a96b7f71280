/** Benchmarks (`vitest bench`), apart from the test suite's configuration and its global set-up. */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    benchmark: { include: ["**/*.bench.ts"] }
  }
})
