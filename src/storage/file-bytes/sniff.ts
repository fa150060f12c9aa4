/**
 * Content sniffing by magic numbers for the handful of types uploads may have. The declared
 * type of an upload must agree with what the bytes are; the sniffed type is what is stored
 * and served. Anything that looks like markup is named as such, so it is never accepted as
 * text: browsers that sniff would render it.
 */

/** What the bytes are, as a media type, or undefined when they are none of the known kinds. */
export function sniff(bytes: Uint8Array): string | undefined {
  const starts = (signature: string, at = 0) => {
    if (bytes.length < at + signature.length) return false
    for (let i = 0; i < signature.length; i += 1)
      if (bytes[at + i] !== signature.charCodeAt(i)) return false
    return true
  }
  if (starts('\x89PNG\r\n\x1a\n')) return 'image/png'
  if (starts('\xff\xd8\xff')) return 'image/jpeg'
  if (starts('GIF87a') || starts('GIF89a')) return 'image/gif'
  if (starts('RIFF') && starts('WEBP', 8)) return 'image/webp'
  if (starts('%PDF-')) return 'application/pdf'
  if (starts('PK\x03\x04') || starts('PK\x05\x06')) return 'application/zip'
  if (starts('ftyp', 4) && bytes.length >= 12) return 'video/mp4'
  return sniffText(bytes)
}

/** Markup a sniffing browser renders (WHATWG MIME Sniffing §7.1), after leading whitespace. */
const MARKUP: ReadonlyArray<[string, string]> = [
  ['<!doctype html', 'text/html'],
  ['<html', 'text/html'],
  ['<head', 'text/html'],
  ['<script', 'text/html'],
  ['<iframe', 'text/html'],
  ['<h1', 'text/html'],
  ['<div', 'text/html'],
  ['<font', 'text/html'],
  ['<table', 'text/html'],
  ['<a', 'text/html'],
  ['<style', 'text/html'],
  ['<title', 'text/html'],
  ['<b', 'text/html'],
  ['<body', 'text/html'],
  ['<br', 'text/html'],
  ['<p', 'text/html'],
  ['<!--', 'text/html'],
  ['<svg', 'image/svg+xml'],
  ['<?xml', 'application/xml'],
]

/** Tab, line feed, form feed and carriage return are text; other controls are binary. */
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0c, 0x0d])

/** Whether `text` holds a C0 control character (or DEL) other than the `allowed` ones. */
export function hasControlCharacters(text: string, allowed: ReadonlySet<number> = new Set()) {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i)
    if ((code < 0x20 || code === 0x7f) && !allowed.has(code)) return true
  }
  return false
}

/** UTF-8 text without control characters is `text/plain`; markup is named for what it is. */
function sniffText(bytes: Uint8Array): string | undefined {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return undefined
  }
  if (hasControlCharacters(text, TEXT_CONTROLS)) return undefined
  const head = text.trimStart().slice(0, 32).toLowerCase()
  for (const [prefix, type] of MARKUP) {
    if (!head.startsWith(prefix)) continue
    const next = head.charAt(prefix.length)
    if (prefix === '<!--' || prefix === '<?xml' || next === '' || next === ' ' || next === '>')
      return type
    if (/[\s/]/.test(next)) return type
  }
  return 'text/plain'
}

/** Pixel size of an image from its header, when the format says it up front. */
export function imageSize(
  type: string,
  bytes: Uint8Array,
): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const fits = (end: number) => bytes.length >= end
  if (type === 'image/png' && fits(24))
    return { width: view.getUint32(16), height: view.getUint32(20) }
  if (type === 'image/gif' && fits(10))
    return { width: view.getUint16(6, true), height: view.getUint16(8, true) }
  if (type === 'image/jpeg') return jpegSize(bytes, view)
  if (type === 'image/webp' && fits(30)) return webpSize(bytes, view)
  return undefined
}

/** The first start-of-frame marker holds the size (SOF0…SOF15 but DHT, JPG and DAC). */
function jpegSize(bytes: Uint8Array, view: DataView) {
  let at = 2
  while (at + 9 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined
    const marker = bytes[at + 1] ?? 0
    if (marker === 0xff) {
      at += 1
      continue
    }
    const length = view.getUint16(at + 2)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) }
    at += 2 + length
  }
  return undefined
}

function webpSize(bytes: Uint8Array, view: DataView) {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16))
  const u24 = (at: number) => view.getUint16(at, true) + ((bytes[at + 2] ?? 0) << 16)
  if (chunk === 'VP8X') return { width: u24(24) + 1, height: u24(27) + 1 }
  if (chunk === 'VP8 ')
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }
  if (chunk === 'VP8L') {
    const b = (i: number) => bytes[21 + i] ?? 0
    return {
      width: 1 + (((b(1) & 0x3f) << 8) | b(0)),
      height: 1 + (((b(3) & 0x0f) << 10) | (b(2) << 2) | ((b(1) & 0xc0) >> 6)),
    }
  }
  return undefined
}
