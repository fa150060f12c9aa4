import type { Migration } from './index.js'

export const community: Migration = {
  id: '0009-community',
  async up() {},
}
