/**
 * The WHATWG HTML "valid e-mail address" pattern, the one `<input type="email">` applies, so
 * the command line accepts exactly what the sign-in form does.
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/

/** RFC 5321 §4.5.3.1: at most 64 octets before the `@` and 254 in all. */
export function isEmailAddress(value: string): boolean {
  const at = value.indexOf('@')
  return value.length <= 254 && at > 0 && at <= 64 && EMAIL.test(value)
}
