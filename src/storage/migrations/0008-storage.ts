import type { Migration } from './index.js'

export const storage: Migration = {
  id: '0008-storage',
  async up() {},
}
