import type { RateLimiter } from '../storage/rate-limits.js'

/**
 * Sign-in throttling that an attacker cannot turn against the person they attack.
 *
 * A sign-in from a browser that has signed in as the account before (it holds a valid device
 * cookie for it, device-cookie.ts) is counted only against that browser: {@link LIMITS}
 * `device` failures per window, after which the browser counts as unknown. Nothing done
 * from anywhere else touches that budget, so the owner's own browsers always get through.
 *
 * A sign-in from any other browser must fit three budgets at once: per account and address,
 * per address (all accounts: password spraying), and per account from unknown browsers,
 * shared by the whole internet. The last one bounds guessing however many addresses an
 * attacker has; when an attacker spends it, only new browsers wait, and the window ends.
 *
 * Every attempt first reserves one unit of each budget, atomically in the shared store
 * (RateLimiter.reserve): concurrent attempts, on any number of instances, can never spend
 * more than a budget holds. A refused attempt gives its units back, so an attacker held
 * back by one budget cannot drain another with attempts that were never checked; a
 * successful sign-in gives them back too, so only failures count.
 */
export const LIMITS = {
  windowMs: 15 * 60_000,
  /** Failures per account from one browser known to it. */
  device: 10,
  /** Failures per account and client address, from unknown browsers. */
  accountAddress: 10,
  /** Failures per client address, from unknown browsers, whatever the account. */
  address: 50,
  /** Failures per account from all unknown browsers together. */
  account: 20,
} as const

export interface SignInAttempt {
  /** The e-mail address as typed, lower-cased: accounts that do not exist count the same. */
  readonly account: string
  readonly address: string
  /** The device id when the browser is known for this account. */
  readonly device: string | undefined
}

/** Budgets taken for one attempt: give them back on success, keep them on failure. */
export interface Reservation {
  /** Gives every unit back (a successful sign-in is not a failure). */
  refund(): Promise<void>
}

export type ThrottleVerdict =
  | { readonly allowed: true; readonly reservation: Reservation }
  | { readonly allowed: false; readonly retryAfter: number }

interface Budget {
  readonly bucket: string
  readonly subject: string
  readonly limit: number
}

/** Reserves the budgets of one attempt, in order; refunds them all if any is spent. */
async function reserveAll(
  limiter: RateLimiter,
  budgets: readonly Budget[],
  now: number,
): Promise<ThrottleVerdict> {
  const taken: Budget[] = []
  const refund = () =>
    Promise.all(taken.map((b) => limiter.refund(b.bucket, b.subject, LIMITS.windowMs, now))).then(
      () => undefined,
    )
  for (const budget of budgets) {
    let verdict: Awaited<ReturnType<RateLimiter['reserve']>>
    try {
      verdict = await limiter.reserve(
        budget.bucket,
        budget.subject,
        budget.limit,
        LIMITS.windowMs,
        now,
      )
    } catch (error) {
      await refund().catch(() => {})
      throw error
    }
    taken.push(budget)
    if (!verdict.allowed) {
      await refund()
      return { allowed: false, retryAfter: verdict.retryAfter }
    }
  }
  return { allowed: true, reservation: { refund } }
}

/**
 * Takes what one sign-in attempt costs: from a known browser its own budget, falling back
 * to the unknown-browser budgets when that is spent; from an unknown browser, those three.
 */
export async function reserveSignIn(
  limiter: RateLimiter,
  attempt: SignInAttempt,
  now: number,
): Promise<ThrottleVerdict> {
  if (attempt.device !== undefined) {
    const known = await reserveAll(
      limiter,
      [
        {
          bucket: 'login-device',
          subject: `${attempt.account} ${attempt.device}`,
          limit: LIMITS.device,
        },
      ],
      now,
    )
    if (known.allowed) return known
  }
  return reserveAll(
    limiter,
    [
      { bucket: 'login-address', subject: attempt.address, limit: LIMITS.address },
      {
        bucket: 'login-account-address',
        subject: `${attempt.account} ${attempt.address}`,
        limit: LIMITS.accountAddress,
      },
      { bucket: 'login-account', subject: attempt.account, limit: LIMITS.account },
    ],
    now,
  )
}
