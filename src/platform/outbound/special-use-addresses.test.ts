import { describe, expect, it } from 'vitest'
import { isSpecialUseAddress, specialUseRange } from './special-use-addresses.js'

describe('RFC 6890 special-use addresses', () => {
  it('lets ordinary public unicast addresses through', () => {
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450::1']) {
      expect(specialUseRange(address), address).toBeUndefined()
    }
  })

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::ffff:10.0.0.1', 'ipv4Mapped'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['::', 'unspecified'],
    ['fd00::1', 'uniqueLocal'],
    ['::a00:1', 'not_global_unicast'],
  ])('%s is %s', (address, range) => {
    expect(specialUseRange(address)).toBe(range)
  })

  it('treats anything that is not a plain IP address as unusable', () => {
    for (const value of ['0x7f.1', '0177.0.0.1', '127.1', '2130706433', 'localhost', '']) {
      expect(isSpecialUseAddress(value), value).toBe(true)
    }
  })
})
