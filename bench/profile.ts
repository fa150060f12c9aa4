import { readFileSync } from 'node:fs'

/**
 * Summarizes a V8 CPU profile of Portico or the limit server (from `npm run bench --
 * --cpu-prof DIR`, one file a server): where the time went, by function and by package,
 * optionally only inside the measured windows of one scenario on that server (read from the
 * results JSON of the same run), so that the making of pools and the other scenarios do not
 * blur the picture.
 *
 *   node dist/bench/profile.js DIR/CPU.….cpuprofile [--results FILE --scenario ID
 *     [--server portico|limit]] [--top N]
 */

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: readonly number[]
}
interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly startTime: number
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

const args = process.argv.slice(2)
const flag = (name: string) => {
  const at = args.indexOf(`--${name}`)
  return at >= 0 ? args[at + 1] : undefined
}
const file = args[0]
if (!file || file.startsWith('--')) {
  console.error(
    'usage: node dist/bench/profile.js PROFILE [--results FILE --scenario ID [--server portico|limit]] [--top N]',
  )
  process.exit(2)
}
const top = Number(flag('top') ?? 30)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile

let windows: Array<readonly [number, number]> | undefined
const resultsFile = flag('results')
const scenario = flag('scenario')
const server = flag('server') ?? 'portico'
if (resultsFile && scenario) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
    measurements: Array<{
      scenario: string
      server: string
      windows?: Array<[number, number]>
      /** Results written before measurements were sliced: one window each. */
      window?: [number, number]
    }>
  }
  windows = results.measurements
    .filter((m) => m.scenario === scenario && m.server === server)
    .flatMap((m) => m.windows ?? (m.window ? [m.window] : []))
  if (windows.length === 0)
    throw new Error(`no measured window of ${scenario} on ${server} in ${resultsFile}`)
}

const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const parentOf = new Map<number, number>()
for (const node of profile.nodes)
  for (const child of node.children ?? []) parentOf.set(child, node.id)

const where = (frame: CallFrame) =>
  frame.url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\//, '')
    .replace(/.*\/dist\//, 'dist/')
const label = (frame: CallFrame) =>
  `${frame.functionName || '(anonymous)'} ${where(frame)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`
const packageOf = (frame: CallFrame) => {
  const url = frame.url
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (module) return module
  if (url.includes('/dist/')) return `portico ${where(frame)}`
  if (url.startsWith('node:')) return 'node internals'
  return frame.functionName || '(native)'
}

const self = new Map<string, number>()
const inclusive = new Map<string, number>()
const packages = new Map<string, number>()
let total = 0
let time = profile.startTime
for (let i = 0; i < profile.samples.length; i += 1) {
  const delta = profile.timeDeltas[i] ?? 0
  time += delta
  if (windows && !windows.some(([from, to]) => time >= from && time <= to)) continue
  const node = nodes.get(profile.samples[i] ?? -1)
  if (!node || node.callFrame.functionName === '(idle)') continue
  total += delta
  self.set(label(node.callFrame), (self.get(label(node.callFrame)) ?? 0) + delta)
  packages.set(packageOf(node.callFrame), (packages.get(packageOf(node.callFrame)) ?? 0) + delta)
  const seen = new Set<string>()
  for (let id: number | undefined = node.id; id !== undefined; id = parentOf.get(id)) {
    const key = label(nodes.get(id)?.callFrame ?? node.callFrame)
    if (seen.has(key)) continue
    seen.add(key)
    inclusive.set(key, (inclusive.get(key) ?? 0) + delta)
  }
}

const list = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, value]) => `${((value / total) * 100).toFixed(1).padStart(5)} %  ${key}`)
    .join('\n')

console.log(
  `${(total / 1000).toFixed(0)} ms of CPU${windows ? ` in ${windows.length} measured windows of ${scenario}` : ''} (idle left out)\n`,
)
console.log(`By package (self time):\n${list(packages, 15)}\n`)
console.log(`By function (self time):\n${list(self, top)}\n`)
console.log(`By function (inclusive):\n${list(inclusive, top)}`)
