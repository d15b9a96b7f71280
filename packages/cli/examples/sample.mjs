// Prints a made-up 75-year CSV of daily values (1950–2024, a slow warming, a few missing cells)
// for trying the command line: node examples/sample.mjs > sample.csv
let seed = 75
const random = () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0
  return seed / 2 ** 32
}
const DAY = 86_400_000
const first = Date.UTC(1950, 0, 1)
const days = (Date.UTC(2024, 11, 31) - first) / DAY + 1
const lines = ["date,tmax,tmin,precip"]
for (let i = 0; i < days; i++) {
  const season = Math.sin((2 * Math.PI * (i - 110)) / 365.25)
  const cell = (x) => (random() < 0.01 ? "" : (Math.round(x * 10) / 10).toFixed(1))
  const tmax = cell(15 + i / 9000 + 11 * season + random() * 6)
  const tmin = cell(5 + i / 10000 + 8 * season + random() * 5)
  const wet = random()
  const precip = wet < 0.6 ? "0.0" : cell((wet - 0.6) * 30)
  lines.push(`${new Date(first + i * DAY).toISOString().slice(0, 10)},${tmax},${tmin},${precip}`)
}
process.stdout.write(`${lines.join("\n")}\n`)
