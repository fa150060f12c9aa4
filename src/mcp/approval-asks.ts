import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server'
import type { PendingApproval } from '../api/approvals/approval-problems.js'
import { argumentsDigest } from '../api/approvals/arguments-digest.js'
import type { TokenCaller } from '../api/caller.js'
import type { ToolInput } from './tool-arguments.js'
import { type ToolResult, toolProblem } from './tool-results.js'
import type { SchoolTool } from './tools.js'

/**
 * Issue 35 over MCP: a call held for a yes (the API's `approval_required`) is asked in the
 * form the caller's client supports.
 *
 * - A 2026-07-28 client that declared form elicitation, for a `person` confirmation: an
 *   `input_required` result whose form says what will happen; its signed `requestState` is
 *   bound to the approval, the grant, the operation and a digest of the arguments. The retry
 *   carries the answer: accept records the person's yes and runs the call once (the API
 *   spends the approval); decline records a no; either a decline or a cancel runs nothing.
 * - A 2026-07-28 client without form elicitation (or an `owner` confirmation, which is never
 *   answered through the agent's client): a URL-mode elicitation to Portico's approval page,
 *   in the same `input_required` flow; a 2025-11-25 client: the URL-elicitation-required
 *   error (-32042) naming the same page. Its retry with the same arguments runs once after
 *   the yes.
 * - An older client, or one declaring no elicitation: the tool error with the problem
 *   (`approval_url`), as REST answers it.
 */

/** How the client of this request may be asked (from its revision and capabilities). */
export type Asking =
  | {
      readonly era: '2026-07-28'
      readonly form: boolean
      readonly url: boolean
      /** The answers a retried request carries (untrusted), and its state, verified. */
      readonly responses?: Record<string, unknown>
      readonly state?: AskedState
    }
  | { readonly era: '2025-11-25' }
  | { readonly era: 'older' }

/** What a form's requestState binds: the approval and the very call it was asked for. */
export interface AskedState {
  readonly approval: string
  readonly grant: string
  readonly operation: string
  readonly digest: string
  /** A form answers the question itself; a page's accept only says the person went there. */
  readonly mode: 'form' | 'url'
}

/** The key of the form (or page) in `inputRequests`, and of its answer on the retry. */
const ASKED = 'approval'

/** The elicitation modes a 2026-07-28 request's client declared (an empty object: form). */
export function elicitationModes(envelope: Record<string, unknown> | undefined): {
  readonly form: boolean
  readonly url: boolean
} {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY]
  const elicitation =
    typeof capabilities === 'object' && capabilities !== null
      ? (capabilities as { elicitation?: unknown }).elicitation
      : undefined
  if (typeof elicitation !== 'object' || elicitation === null) return { form: false, url: false }
  const { form, url } = elicitation as { form?: unknown; url?: unknown }
  if (form === undefined && url === undefined) return { form: true, url: false }
  return { form: form !== undefined, url: url !== undefined }
}

/** The digest the API binds an approval to, of a tool call's input (confirmations.ts). */
const digestOf = (input: ToolInput) =>
  argumentsDigest({ params: input.params, query: input.query, body: input.body })

/** Whether a call may carry the person's answer (a 2026-07-28 retry with its state). */
export const carriesAnswer = (
  asking: Asking | undefined,
): asking is Extract<Asking, { era: '2026-07-28' }> & {
  readonly responses: Record<string, unknown>
  readonly state: AskedState
} => asking?.era === '2026-07-28' && !!asking.state && !!asking.responses

/**
 * A retried call carrying the person's answer to a form: records it, when the state names
 * this grant, operation and arguments (else the answer is ignored and the call asks again).
 * A decline or a cancel is answered here, running nothing; undefined: go on and run the call
 * (an accepted approval is spent by the API, once).
 */
export async function takeAnswer(
  asking: Asking | undefined,
  tool: SchoolTool,
  input: ToolInput,
  caller: TokenCaller,
  answer: (approvalId: string, accept: boolean) => Promise<boolean>,
  requestId: string,
): Promise<ToolResult | undefined> {
  if (!carriesAnswer(asking)) return undefined
  const { state } = asking
  if (
    state.grant !== caller.grantId ||
    state.operation !== tool.operation.name ||
    state.digest !== digestOf(input)
  )
    return undefined
  const given = inputResponse(asking.responses, ASKED)
  if (given.kind !== 'elicit') return undefined
  if (given.action === 'accept') {
    // A yes given in the form; after a page, the API finds what was said there.
    if (state.mode === 'form') await answer(state.approval, true)
    return undefined
  }
  if (given.action === 'decline') await answer(state.approval, false)
  return toolProblem(
    403,
    {
      code: given.action === 'decline' ? 'approval_refused' : 'approval_cancelled',
      title: given.action === 'decline' ? 'Approval refused' : 'Approval cancelled',
      detail:
        given.action === 'decline'
          ? 'The person said no: nothing was changed.'
          : 'The person closed the question without answering: nothing was changed; the same call asks again.',
      approval_id: state.approval,
    },
    requestId,
  )
}

/**
 * A call held for a yes, asked as the client can be asked (see above): an `input_required`
 * result, the -32042 error (thrown), or the tool error REST's problem makes.
 */
export async function askApproval(
  asking: Asking | undefined,
  approval: PendingApproval,
  problem: ToolResult,
  tool: SchoolTool,
  input: ToolInput,
  caller: TokenCaller,
  states: RequestStateCodec<AskedState> | undefined,
): Promise<ToolResult | InputRequiredResult> {
  const message = `${approval.description} (${tool.name})`
  if (asking?.era === '2025-11-25')
    throw new UrlElicitationRequiredError(
      [{ mode: 'url', elicitationId: approval.id, url: approval.url, message }],
      `This call waits for a yes at ${approval.url}; after it, repeat the same call.`,
    )
  if (asking?.era !== '2026-07-28' || !states) return problem
  const state = (mode: AskedState['mode']) =>
    states.mint({
      approval: approval.id,
      grant: caller.grantId,
      operation: tool.operation.name,
      digest: digestOf(input),
      mode,
    })
  if (approval.level === 'person' && asking.form)
    return inputRequired({
      inputRequests: {
        [ASKED]: inputRequired.elicit({
          message,
          requestedSchema: { type: 'object', properties: {} },
        }),
      },
      requestState: await state('form'),
    })
  if (asking.url)
    return inputRequired({
      inputRequests: { [ASKED]: inputRequired.elicitUrl({ message, url: approval.url }) },
      requestState: await state('url'),
    })
  return problem
}
