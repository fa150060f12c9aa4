import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import * as cookie from 'cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type CookieNames, setCookie } from './browser.js'

/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): after a
 * successful sign-in the browser gets a cookie that says "this browser has signed in as this
 * account before", signed with a server key (HMAC-SHA256). Sign-ins from such a browser are
 * counted on their own, so failures elsewhere can never lock its owner out; see
 * sign-in-throttle.ts. The cookie names no account: each entry is a random device id and
 * the HMAC of that id with the account, so only the server can tell which account it
 * vouches for. A browser remembers the last {@link MAX_ENTRIES} accounts signed in on it.
 */

/** How long a browser stays known after its last sign-in. */
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 180 * 86400
const MAX_ENTRIES = 5
const ENTRY = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/
/** Entries of a cookie at most; anything longer is not ours and is ignored. */
const MAX_COOKIE_LENGTH = MAX_ENTRIES * 67 + MAX_ENTRIES

interface Entry {
  readonly id: string
  readonly mac: string
}

export function deviceCookieName(names: CookieNames): string {
  return names.secure ? '__Host-portico_device' : 'portico_device'
}

function macOf(key: Buffer, id: string, account: string): string {
  return createHmac('sha256', key).update(`portico device\0${id}\0${account}`).digest('base64url')
}

/** The well-formed entries of the browser's device cookie, newest first. */
function entriesOf(request: FastifyRequest, name: string): Entry[] {
  const header = request.headers.cookie
  if (!header) return []
  const value = cookie.parse(header)[name]
  if (!value || value.length > MAX_COOKIE_LENGTH) return []
  const entries: Entry[] = []
  for (const part of value.split('~').slice(0, MAX_ENTRIES)) {
    const match = ENTRY.exec(part)
    if (match?.[1] && match[2]) entries.push({ id: match[1], mac: match[2] })
  }
  return entries
}

/**
 * The device id under which this browser signed in as `account` before, when its cookie
 * carries a valid entry for it (compared in constant time); undefined for an unknown browser.
 */
export function knownDevice(
  request: FastifyRequest,
  names: CookieNames,
  key: Buffer,
  account: string,
): string | undefined {
  for (const entry of entriesOf(request, deviceCookieName(names))) {
    const expected = Buffer.from(macOf(key, entry.id, account))
    const presented = Buffer.from(entry.mac)
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) {
      return entry.id
    }
  }
  return undefined
}

/**
 * After a successful sign-in: the browser is known for `account` from now on (its device id
 * kept when it had one), for {@link DEVICE_COOKIE_MAX_AGE_SECONDS} more.
 */
export function rememberDevice(
  request: FastifyRequest,
  reply: FastifyReply,
  names: CookieNames,
  key: Buffer,
  account: string,
): void {
  const name = deviceCookieName(names)
  const id = knownDevice(request, names, key, account) ?? randomBytes(16).toString('base64url')
  const others = entriesOf(request, name).filter((entry) => entry.id !== id)
  const entries = [{ id, mac: macOf(key, id, account) }, ...others].slice(0, MAX_ENTRIES)
  setCookie(
    reply,
    names,
    name,
    entries.map((entry) => `${entry.id}.${entry.mac}`).join('~'),
    DEVICE_COOKIE_MAX_AGE_SECONDS,
  )
}
