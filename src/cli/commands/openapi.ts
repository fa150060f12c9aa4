import type { Config } from '../../config.js'
import { openApiDocumentFor } from '../../http/openapi-file.js'
import type { Args } from '../args.js'

/** Prints the OpenAPI document (for `--issuer`, default the checked-in copy's placeholder). */
export async function openapiCommand(args: Args, _config: Config): Promise<number> {
  const document = openApiDocumentFor(args.options.issuer)
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`)
  return 0
}
