import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino'

type LogArguments = Parameters<Logger['info']>

/**
 * A request's logger (`request.log`), made into a pino child with the request id only when
 * the request logs something, which most never do: making the child for every request cost
 * more than the rest of a userinfo answer's logging (npm run bench, profiled). A call at a
 * level that is off makes nothing either.
 */
export class LazyRequestLogger {
  readonly #parent: Logger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #made: Logger | undefined

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
    // A route with a log level of its own decides with that level: made at once.
    if (options.level !== undefined) this.#made = parent.child(bindings, options)
  }

  get #logger(): Logger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options)
    return this.#made
  }

  #log(level: Level, args: LogArguments): void {
    if (this.#made === undefined && !this.#parent.isLevelEnabled(level)) return
    ;(this.#logger[level] as (...a: LogArguments) => void)(...args)
  }

  get level(): string {
    return this.#made?.level ?? this.#parent.level
  }
  set level(level: string) {
    this.#logger.level = level
  }

  fatal(...args: LogArguments): void {
    this.#log('fatal', args)
  }
  error(...args: LogArguments): void {
    this.#log('error', args)
  }
  warn(...args: LogArguments): void {
    this.#log('warn', args)
  }
  info(...args: LogArguments): void {
    this.#log('info', args)
  }
  debug(...args: LogArguments): void {
    this.#log('debug', args)
  }
  trace(...args: LogArguments): void {
    this.#log('trace', args)
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#logger.child(bindings, options)
  }

  isLevelEnabled(level: string): boolean {
    return (this.#made ?? this.#parent).isLevelEnabled(level)
  }
}

/** Fastify's `childLoggerFactory`: a lazy child per request of the app's pino logger. */
export function lazyRequestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(parent as Logger, bindings, options) as unknown as FastifyBaseLogger
}
