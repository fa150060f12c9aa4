/** A parsed JSON body as tests read it: any shape, checked by the assertions themselves. */
// biome-ignore lint/suspicious/noExplicitAny: tests assert on arbitrary JSON shapes
export type Json = Record<string, any>

/** Reads a response body as JSON. */
export async function readJson(response: Response): Promise<Json> {
  return (await response.json()) as Json
}

/** POSTs a JSON body (given as a value, or as raw text when a string). */
export function jsonInit(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }
}

/** POSTs an application/x-www-form-urlencoded body; arrays repeat the field. */
export function formInit(
  fields: Record<string, string | readonly string[]>,
  headers: Record<string, string> = {},
): RequestInit {
  const body = new URLSearchParams()
  for (const [key, value] of Object.entries(fields)) {
    for (const v of typeof value === 'string' ? [value] : value) body.append(key, v)
  }
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: body.toString(),
  }
}
