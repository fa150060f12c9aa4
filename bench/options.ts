/** The flags of `npm run bench -- …`. */
export interface Options {
  /** Seconds measured per scenario, server and round. */
  readonly duration: number
  /** Seconds of warm-up before each measurement. */
  readonly warmup: number
  readonly rounds: number
  /**
   * Slices each round's measurement of a scenario on several servers is cut into, the servers
   * alternating slice by slice (1: each server measured whole, one after the other).
   */
  readonly slices: number
  readonly connections: number
  /** Scenario ids to run (all when empty); the baseline always runs. */
  readonly only: readonly string[]
  /** Where to write the JSON; undefined: bench/results/<time>-<database>.json. */
  readonly out: string | undefined
  readonly save: boolean
  /** Write V8 CPU profiles of Portico and the limit server (node --cpu-prof) into this folder. */
  readonly cpuProf: string | undefined
}

export const USAGE = `npm run bench [-- options]

  --duration S      seconds measured per scenario, server and round (default 3)
  --warmup S        seconds of warm-up before each measurement (default 1)
  --rounds N        rounds, the servers interleaved in each (default 3)
  --slices N        a round's measurement on several servers cut into N slices, the
                    servers alternating slice by slice (default 6; 1: one piece each)
  --connections N   concurrent connections of the load generator (default 10)
  --only a,b        only these scenarios (ids: static discovery registration code
                    authorization refresh introspection userinfo course mcp-course event
                    conditional courses mcp-tools-list catalogue events api-object sign-in)
  --out FILE        write the JSON there instead of bench/results/<time>-<database>.json
  --no-save         write no JSON
  --cpu-prof DIR    profile Portico and the limit server (node --cpu-prof) into DIR, a file
                    each; summarise one with dist/bench/profile.js, or open it in Chrome
                    DevTools or speedscope for a flame graph

Portico runs on SQLite, or on a fresh PostgreSQL database when DATABASE_URL=postgres://…`

export function parseOptions(argv: readonly string[]): Options | 'help' {
  const values = new Map<string, string>()
  let save = true
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i] ?? ''
    if (flag === '--help' || flag === '-h') return 'help'
    if (flag === '--no-save') {
      save = false
      continue
    }
    const [name, inline] = flag.split('=', 2)
    if (!name?.startsWith('--')) throw new Error(`unexpected argument ${flag}\n\n${USAGE}`)
    const value = inline ?? argv[++i]
    if (value === undefined) throw new Error(`${name} needs a value`)
    values.set(name.slice(2), value)
  }
  const known = new Set([
    'duration',
    'warmup',
    'rounds',
    'slices',
    'connections',
    'only',
    'out',
    'cpu-prof',
  ])
  for (const name of values.keys()) {
    if (!known.has(name)) throw new Error(`unknown option --${name}\n\n${USAGE}`)
  }
  const number = (name: string, fallback: number, min: number, max: number) => {
    const raw = values.get(name)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new Error(`--${name} must be a number from ${min} to ${max}, got ${raw}`)
    }
    return value
  }
  return {
    duration: number('duration', 3, 1, 300),
    warmup: number('warmup', 1, 0, 60),
    rounds: Math.round(number('rounds', 3, 1, 20)),
    slices: Math.round(number('slices', 6, 1, 30)),
    connections: Math.round(number('connections', 10, 1, 1000)),
    only: (values.get('only') ?? '').split(',').filter(Boolean),
    out: values.get('out'),
    save,
    cpuProf: values.get('cpu-prof'),
  }
}
