import type { AppDeps } from '../../http/deps.js'
import type { Db } from '../../storage/schema.js'

export async function seedCommunity(_db: Db, _now: number, _deps: AppDeps): Promise<void> {}
