import type { AppDeps } from '../../app-deps.js'
import type { Clock } from '../../platform/clock.js'
import type { Random } from '../../platform/random.js'
import { publicFileUrl } from '../../storage/file-bytes/signing.js'
import type { ResourceDefinition } from '../framework/resource.js'
import { RESOURCES } from '../registry.js'
import { couponRecords, productRecords } from './catalogue/commerce.js'
import { courseRecords } from './catalogue/courses.js'
import { eventRecords } from './catalogue/events.js'
import { PLAN_RECORDS } from './catalogue/memberships.js'
import { appearance, SCHOOL } from './catalogue/school.js'
import type { CatalogueRecord, Collection, JsonObject } from './catalogue/types.js'
import { lecturerRecords, writingRecords } from './catalogue/writing.js'
import { DEMO_LOGO } from './files.js'
import type { DemoTime } from './when.js'

/** The framework's write operations, as the demo calls them (for the school's owner). */
export interface DemoWriter {
  create(resource: ResourceDefinition, body: JsonObject, parentId?: string): Promise<string>
  update(resource: ResourceDefinition, id: string, body: JsonObject): Promise<void>
  action(resource: ResourceDefinition, id: string, name: string, input?: JsonObject): Promise<void>
}

/** The whole catalogue, in the order its references need (courses before the coupons …). */
export function catalogue(deps: AppDeps, time: DemoTime): CatalogueRecord[] {
  const cover = publicFileUrl(
    deps.config,
    'fil_demo_lightroom_presets_cover',
    'lightroom-presets-cover.png',
  )
  return [
    ...lecturerRecords(),
    ...courseRecords(time),
    ...writingRecords(time.iso),
    ...couponRecords(time),
    ...productRecords(cover),
    ...eventRecords(time),
    ...PLAN_RECORDS,
  ]
}

/**
 * The deps the demo's operations run with: a clock that says the day of each record (so
 * `created_at`, `published_at` … are its dates) and ids that are the demo's own (so history
 * rows can name the records). An operation asking for an id the record did not plan fails.
 */
export function demoDeps(deps: AppDeps, time: DemoTime) {
  let day = 0
  const ids: string[] = []
  const clock: Clock = { now: () => time.at(day) }
  const random: Random = {
    ...deps.random,
    id(prefix) {
      const next = ids[0]
      if (next?.startsWith(`${prefix}_`)) return ids.shift()!
      throw new Error(`the demo planned no ${prefix} id here (next planned: ${next ?? 'none'})`)
    },
  }
  return {
    deps: { ...deps, clock, random } satisfies AppDeps,
    /** Sets the day and the ids the next operation hands out. */
    next(at: number, planned: readonly string[] = []) {
      day = at
      ids.splice(0, ids.length, ...planned)
    },
    /** Every planned id was handed out. */
    done(what: string) {
      if (ids.length > 0) throw new Error(`${what}: the ids ${ids.join(', ')} were not used`)
    },
  }
}

const byCollection = (collection: Collection | 'school' | 'appearance'): ResourceDefinition => {
  const found = RESOURCES.find((r) => r.collection === collection)
  if (!found) throw new Error(`no resource ${collection}`)
  return found
}

/**
 * Creates the catalogue through the resources' own operations: the school and its look
 * (updates; the logo is the demo's file, saved before), then every record's create body and
 * its later steps, each at its day. A record the API refuses stops the load with the API's
 * answer.
 */
export async function loadCatalogue(
  writer: DemoWriter,
  run: ReturnType<typeof demoDeps>,
  records: readonly CatalogueRecord[],
): Promise<void> {
  run.next(0)
  await writer.update(byCollection('school'), 'school', SCHOOL)
  const logo = publicFileUrl(run.deps.config, DEMO_LOGO.id, DEMO_LOGO.filename)
  await writer.update(byCollection('appearance'), 'appearance', appearance(logo))
  for (const record of records) {
    const resource = byCollection(record.collection)
    run.next(record.day, [record.id, ...(record.ids ?? [])])
    const id = await writer.create(resource, record.body, record.parent)
    if (id !== record.id) throw new Error(`demo ${record.id} was created as ${id}`)
    run.done(record.id)
    for (const step of record.later ?? []) {
      if ('action' in step) {
        run.next(step.day)
        await writer.action(resource, record.id, step.action, step.input)
      } else {
        run.next(step.day, step.ids)
        await writer.update(resource, record.id, step.update)
        run.done(`${record.id} on day ${step.day}`)
      }
    }
  }
}
