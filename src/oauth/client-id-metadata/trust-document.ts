import type { TrustedClientDocumentStore } from '../../storage/trusted-client-documents.js'
import { clientIdUrlProblem } from './client-id-url.js'

/** What trusting a document URL came to: refused (why), or trusted now or before. */
export type TrustOutcome =
  | { readonly problem: string }
  | { readonly problem?: undefined; readonly added: boolean }

/**
 * Marks a Client ID Metadata Document URL as a reviewed integration (its https callbacks
 * become valid, the consent page drops the "not reviewed" warning), judged as written: a URL
 * that cannot be a client_id is refused and nothing is stored. `portico integrations trust`
 * and the Apps and agents page both trust through here.
 */
export async function trustDocument(
  store: TrustedClientDocumentStore,
  url: string,
  now: number,
): Promise<TrustOutcome> {
  const problem = clientIdUrlProblem(url)
  if (problem) return { problem }
  return { added: await store.trust(url, now) }
}
