import type { AppDeps } from '../../http/deps.js'
import type { Db } from '../../storage/schema.js'

export async function seedStorage(_db: Db, _now: number, _deps: AppDeps): Promise<void> {}
