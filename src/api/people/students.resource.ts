import { boolean, email, enumeration, stringList, text } from '../framework/fields.js'
import { defineResource } from '../framework/resource.js'
import { schoolWide } from './owners.js'

/** Learners (DOMAIN.md §4.3.3): provisioned through the API in the `invited` state. */
export const students = defineResource({
  object: 'student',
  collection: 'students',
  table: 'students',
  idPrefix: 'stu',
  summary: 'The school’s learners',
  scopes: { read: 'students:read', write: 'students:write' },
  writeRoles: ['owner', 'admin', 'teaching_assistant'],
  ownership: schoolWide(
    'Learners are the school’s; teaching assistants manage every learner (DOMAIN.md §4.1)',
  ),
  operations: ['list', 'get', 'create', 'update'],
  fields: {
    email: email({ required: true, unique: true, immutable: true, filter: true, search: true }),
    name: text({ required: true, max: 100, sortable: true, search: true }),
    phone: text({
      max: 30,
      nullable: true,
      pattern: /^\+?[0-9 ()-]{3,30}$/,
      patternHint: 'a phone number',
      // Personal contact data, as the e-mail address: named in the activity record.
      activity: 'name',
    }),
    locale: text({ max: 35, nullable: true, pattern: /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/ }),
    timezone: text({ max: 64, nullable: true }),
    status: enumeration(['active', 'blocked', 'invited'], {
      readOnly: true,
      filter: true,
      default: 'invited',
      description: 'Changed by block and unblock; active once the learner signs up',
    }),
    tags: stringList({ default: [] }),
    marketing_opt_in: boolean({ filter: true, default: false }),
    source: enumeration(['signup', 'checkout', 'api', 'import', 'admin'], {
      readOnly: true,
      filter: true,
      default: 'api',
    }),
    notes: text({ max: 5000, nullable: true }),
  },
  lifecycle: {
    block: {
      summary: 'Block the learner: no sign-in, no access to courses',
      to: 'blocked',
    },
    unblock: { summary: 'Lift a block', to: 'active' },
  },
})
