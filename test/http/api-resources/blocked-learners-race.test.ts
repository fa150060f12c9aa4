import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { needsPostgres } from '../../support/skips.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

// The blocked-learner check and the write it guards are one step: on PostgreSQL the check
// share-locks the student's row (src/api/people/blocked-learners.ts), so a block committed
// between the check and the write cannot leave a blocked learner with new access. SQLite
// runs one transaction at a time, so there is no race to test there.

let server: TestServer
let call: ReturnType<typeof apiClient>
let courseId: string

describe.skipIf(needsPostgres('the race of a block with an enrollment'))(
  'a block under way when a learner is enrolled',
  () => {
    beforeAll(async () => {
      server = await startTestServer()
      const scope = 'students:read students:write courses:read courses:write'
      call = apiClient(server, (await issue(server, { role: 'owner', scope })).accessToken)
      const course = await call('/api/v1/courses', {
        method: 'POST',
        json: {
          title: 'Race course',
          pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
        },
      })
      courseId = (await readJson(course)).id
    })
    afterAll(async () => {
      await server?.close()
    })

    it('is waited for, and refuses the enrollment', async () => {
      const made = await call('/api/v1/students', {
        method: 'POST',
        json: { email: 'race@example.com', name: 'Race' },
      })
      const student = (await readJson(made)).id as string
      expect((await call(`/api/v1/students/${student}/unblock`, { method: 'POST' })).status).toBe(
        200,
      )
      const db = server.deps.database.db
      /** Resolves once a statement of this database waits for a lock (the share lock). */
      let watching = true
      async function lockAwaited(): Promise<'waiting'> {
        while (watching) {
          const { rows } = await sql<{ n: string }>`
            select count(*) as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
          if (Number(rows[0]?.n) > 0) return 'waiting'
        }
        return 'waiting'
      }
      let enrolled: Promise<{ status: number; body: Json }> | undefined
      try {
        // The block, written and not yet committed, while the enrollment is sent.
        await db.transaction().execute(async (trx) => {
          await trx
            .updateTable('students')
            .set({ status: 'blocked' })
            .where('id', '=', student)
            .execute()
          const answer = call('/api/v1/enrollments', {
            method: 'POST',
            json: { student_id: student, course_id: courseId },
          }).then(async (response) => ({ status: response.status, body: await readJson(response) }))
          enrolled = answer
          const first = await Promise.race([answer.then(() => 'answered'), lockAwaited()])
          // Unguarded, the enrollment reads the student as active and is answered at once.
          expect(first).toBe('waiting')
        })
      } finally {
        watching = false
      }
      const answer = await enrolled
      expect(answer?.status, JSON.stringify(answer?.body)).toBe(409)
      expect(answer?.body.code).toBe('learner_blocked')
      const listed = await readJson(await call(`/api/v1/enrollments?student_id=${student}`))
      expect(listed.data).toEqual([])
    })
  },
)
