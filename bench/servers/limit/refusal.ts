/** A refused request: its status, code and detail, as Portico words them. */

export class Refusal {
  readonly status: number
  readonly code: string
  readonly detail: string
  constructor(status: number, code: string, detail: string) {
    this.status = status
    this.code = code
    this.detail = detail
  }
}

/** What was refused, or a 500 for anything thrown that was no refusal (logged). */
export function refusalOf(error: unknown, code: string): Refusal {
  if (error instanceof Refusal) return error
  console.error(error)
  return new Refusal(500, code, 'the limit server failed')
}
