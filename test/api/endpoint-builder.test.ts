import { describe, expect, it } from 'vitest'
import type { Caller } from '../../src/api/caller.js'
import { BINARY, defineEndpoint, jsonAnswer } from '../../src/api/framework/endpoint.js'
import { queryMember, queryText } from '../../src/api/framework/endpoint-query.js'
import { enumeration, integer } from '../../src/api/framework/fields.js'
import type { OperationInput } from '../../src/api/framework/operation.js'
import { ProblemError } from '../../src/api/problem.js'
import type { AppDeps } from '../../src/app-deps.js'
import type { User } from '../../src/storage/users.js'

// The builder's raw bodies, query rules and documentation, without an application: the
// endpoints below need only the issuer and a clock.

const deps = {
  config: { issuer: 'https://school.example' },
  clock: { now: () => 0 },
} as unknown as AppDeps
const writer: Caller = {
  kind: 'token',
  user: { id: 'usr_1', role: 'owner' } as unknown as User,
  clientId: 'cli_1',
  grantId: 'grt_1',
  scopes: new Set(['files:write']),
}
const input = (parts: Partial<OperationInput>): OperationInput => ({
  caller: writer,
  params: {},
  query: {},
  ...parts,
})
const problemOf = (thunk: () => unknown) =>
  Promise.resolve()
    .then(thunk)
    .then(
      () => undefined,
      (error: unknown) => (error instanceof ProblemError ? error : undefined),
    )

const upload = defineEndpoint({
  name: 'files.upload',
  method: 'POST',
  path: '/api/v1/files',
  operationId: 'uploadThing',
  summary: 'Upload',
  tags: ['files'],
  scope: 'files:write',
  query: { size: enumeration(['small', 'large'], { required: false, description: 'How big' }) },
  queryRules: { unknown: 'ignore' },
  idempotent: true,
  rawBody: {
    mediaTypes: { 'image/png': BINARY },
    limit: ({ query }) => ({
      maxBytes: query.size === 'large' ? 8 : 4,
      detail: `${String(query.size ?? 'small')} files may be at most so many bytes`,
    }),
  },
  output: [
    { status: 200, description: 'Known already' },
    { status: 201, description: 'Stored', location: true, etag: true },
  ],
  problems: { '413': 'Too large' },
  run: async ({ bytes }) => jsonAnswer({ size: bytes.length }, { status: 201 }),
}).bind(deps)

const list = defineEndpoint({
  name: 'things.list',
  method: 'GET',
  path: '/api/v1/things',
  operationId: 'listThings',
  summary: 'List',
  tags: ['things'],
  scope: 'files:write',
  query: {
    limit: queryMember(integer({ min: 1, max: 9 }), 'range', 'limit must be 1 to 9'),
    cursor: queryText(),
  },
  queryRules: { status: 400 },
  output: { description: 'A page' },
  problems: {},
  run: async ({ query }) => jsonAnswer(query),
}).bind(deps)

describe('raw bodies', () => {
  it('answers the limit only after the scope and query checks', async () => {
    expect(upload.bodyLimit?.(input({ query: { size: 'large' } })).maxBytes).toBe(8)
    const anonymous = await problemOf(() =>
      upload.bodyLimit?.(input({ caller: { kind: 'anonymous' } })),
    )
    expect(anonymous?.status).toBe(401)
    const bad = await problemOf(() => upload.bodyLimit?.(input({ query: { size: 'huge' } })))
    expect(bad?.status).toBe(422)
  })

  it('hands the bytes to run, refusing more than the limit (413) and JSON (400)', async () => {
    const result = await upload.run(input({ body: Buffer.from('abcd') }))
    expect(result.body).toEqual({ size: 4 })
    const large = await problemOf(() => upload.run(input({ body: Buffer.from('abcde') })))
    expect(large?.status).toBe(413)
    expect(large?.fields).toMatchObject({
      code: 'payload_too_large',
      detail: expect.stringContaining('small'),
    })
    const json = await problemOf(() => upload.run(input({ body: { size: 1 } })))
    expect(json?.status).toBe(400)
  })

  it('documents the media types, the Idempotency-Key, each success and its headers', () => {
    const { openapi } = upload as unknown as { openapi: Record<string, Record<string, unknown>> }
    expect(openapi.requestBody).toEqual({
      required: true,
      content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
    })
    expect(openapi.parameters).toEqual([
      {
        name: 'size',
        in: 'query',
        required: false,
        description: 'How big',
        schema: { type: 'string', enum: ['small', 'large'] },
      },
      { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } },
    ])
    expect(Object.keys(openapi.responses ?? {})).toEqual(['200', '201', '413'])
    expect(openapi.responses?.['201']).toEqual({
      description: 'Stored',
      headers: { ETag: { schema: { type: 'string' } }, Location: { schema: { type: 'string' } } },
    })
  })
})

describe('query rules', () => {
  it('answers a bad query 400 as lists do, with each member its own error code', async () => {
    const problem = await problemOf(() =>
      list.run(input({ query: { limit: 'ten', cursor: ['a', 'b'], colour: 'red' } })),
    )
    expect(problem?.status).toBe(400)
    expect(problem?.fields.code).toBe('invalid_request')
    expect(problem?.fields.errors?.map((e) => [e.field, e.code])).toEqual([
      ['limit', 'range'],
      ['cursor', 'repeated'],
      ['colour', 'unknown_parameter'],
    ])
  })

  it('ignores parameters it does not declare when told to', async () => {
    const result = await upload.run(
      input({ query: { size: 'large', other: 'x' }, body: Buffer.from('a') }),
    )
    expect(result.status).toBe(201)
  })
})
