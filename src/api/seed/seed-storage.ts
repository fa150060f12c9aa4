import { deflateSync } from 'node:zlib'
import type { AppDeps } from '../../app-deps.js'
import { saveFile } from '../../storage/files/records.js'
import { publicFileUrl } from '../../storage/files/signing.js'
import { fileStoreOf } from '../../storage/files/store.js'
import type { Db } from '../../storage/schema.js'
import type { DigitalProductTable, FilePurpose, FileTable } from '../../storage/tables/storage.js'

const DAY = 24 * 3_600_000

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 as PNG chunks and ZIP entries use it. */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** A solid-colour RGB PNG of `width` × `height` pixels. */
export function tinyPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length, 0)
    head.write(type, 4, 'latin1')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])))
    return Buffer.concat([head, data, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array(width).fill(rgb).flat())])
  const pixels = deflateSync(Buffer.concat(Array(height).fill(row)))
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A one-page PDF showing `lines` of text, with a correct cross-reference table. */
export function tinyPdf(lines: readonly string[]): Buffer {
  const escaped = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`)
  const text = lines.map((line, i) => `BT /F1 14 Tf 72 ${720 - i * 24} Td (${escaped(line)}) Tj ET`)
  const stream = text.join('\n')
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  let body = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'))
    body += `${i + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = Buffer.byteLength(body, 'latin1')
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}

/** A ZIP archive of `entries`, stored uncompressed. */
export function tinyZip(entries: ReadonlyArray<{ name: string; content: string }>): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8')
    const data = Buffer.from(entry.content, 'utf8')
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4) // version needed
    local.writeUInt16LE(0x0800, 6) // UTF-8 names
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0x0800, 8)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += local.length + name.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

const preset = (name: string, exposure: string) => ({
  name: `Brightframe Presets/${name}.xmp`,
  content: `<?xml version="1.0"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/" crs:PresetType="Normal" crs:Exposure2012="${exposure}"/></rdf:RDF></x:xmpmeta>\n`,
})

interface DemoFile {
  readonly id: string
  readonly filename: string
  readonly contentType: string
  readonly purpose: FilePurpose
  readonly bytes: () => Buffer
}

/** Placeholder files, real enough to open: the pack's archive and previews, two PDFs, a cover. */
const FILES: readonly DemoFile[] = [
  {
    id: 'fil_demo_lightroom_presets_zip',
    filename: 'brightframe-lightroom-presets.zip',
    contentType: 'application/zip',
    purpose: 'digital_product',
    bytes: () =>
      tinyZip([
        preset('Golden Hour', '+0.35'),
        preset('Moody Blue', '-0.20'),
        preset('Clean Portrait', '+0.10'),
        { name: 'README.txt', content: 'Import the .xmp files in Lightroom: Presets > Import.\n' },
      ]),
  },
  {
    id: 'fil_demo_lightroom_presets_preview',
    filename: 'preset-previews.png',
    contentType: 'image/png',
    purpose: 'digital_product',
    bytes: () => tinyPng(64, 40, [245, 158, 11]),
  },
  {
    id: 'fil_demo_gear_checklist_pdf',
    filename: 'brightframe-gear-checklist.pdf',
    contentType: 'application/pdf',
    purpose: 'digital_product',
    bytes: () =>
      tinyPdf([
        'Brightframe Gear Checklist',
        '[ ] Camera body and two charged batteries',
        '[ ] 35mm or 50mm prime lens',
        '[ ] Two formatted memory cards',
        '[ ] Lens cloth and rocket blower',
        '[ ] Reflector for portraits',
      ]),
  },
  {
    id: 'fil_demo_posing_guide_pdf',
    filename: 'posing-guide-draft.pdf',
    contentType: 'application/pdf',
    purpose: 'digital_product',
    bytes: () => tinyPdf(['Posing Guide (draft)', 'Chapter 1: Angles and weight shift']),
  },
  {
    id: 'fil_demo_lightroom_presets_cover',
    filename: 'lightroom-presets-cover.png',
    contentType: 'image/png',
    purpose: 'page_asset',
    bytes: () => tinyPng(120, 80, [31, 111, 235]),
  },
]

type DemoProduct = Omit<DigitalProductTable, 'created_at' | 'updated_at' | 'price' | 'files'> & {
  readonly fileIds: readonly string[]
  readonly ageDays: number
}

const usd = (amount: number) => JSON.stringify({ amount, currency: 'USD' })

/**
 * The demo files (stored through the file store, so on PostgreSQL in the database) and the
 * demo digital products (DOMAIN.md §4.7): the Lightroom Preset Pack ($24, two files,
 * published, with a public cover), the Gear Checklist (a free lead magnet PDF, published)
 * and the Posing Guide (a draft).
 */
export async function seedStorage(db: Db, now: number, deps: AppDeps): Promise<void> {
  const store = fileStoreOf(deps)
  const rows = new Map<string, FileTable>()
  for (const file of FILES) {
    const row = await saveFile(db, store, {
      id: file.id,
      bytes: file.bytes(),
      contentType: file.contentType,
      filename: file.filename,
      purpose: file.purpose,
      uploadedBy: null,
      now: now - 60 * DAY,
    })
    rows.set(row.id, row)
  }
  const cover = rows.get('fil_demo_lightroom_presets_cover')
  const products: DemoProduct[] = [
    {
      id: 'dpr_demo_lightroom_preset_pack',
      title: 'Lightroom Preset Pack',
      slug: 'lightroom-preset-pack',
      description:
        '<p>Twelve presets from the <strong>Lightroom Editing Masterclass</strong>: golden hour, moody blues and clean portraits.</p>',
      cover_image_url: cover ? publicFileUrl(deps.config, cover.id, cover.filename) : null,
      status: 'published',
      visibility: 'public',
      price_amount: 2400,
      currency: 'USD',
      compare_at_price: usd(3900),
      download_limit: 5,
      access_days: null,
      license_text: 'Personal and client work; do not resell or share the preset files.',
      published_at: now - 55 * DAY,
      fileIds: ['fil_demo_lightroom_presets_zip', 'fil_demo_lightroom_presets_preview'],
      ageDays: 58,
    },
    {
      id: 'dpr_demo_gear_checklist',
      title: 'Gear Checklist PDF',
      slug: 'gear-checklist',
      description:
        '<p>The one-page checklist we pack before every shoot. Free with the newsletter.</p>',
      cover_image_url: null,
      status: 'published',
      visibility: 'public',
      price_amount: 0,
      currency: 'USD',
      compare_at_price: null,
      download_limit: null,
      access_days: null,
      license_text: null,
      published_at: now - 50 * DAY,
      fileIds: ['fil_demo_gear_checklist_pdf'],
      ageDays: 52,
    },
    {
      id: 'dpr_demo_posing_guide',
      title: 'Posing Guide eBook',
      slug: 'posing-guide',
      description: '<p>Natural poses for portraits, couples and small groups.</p>',
      cover_image_url: null,
      status: 'draft',
      visibility: 'public',
      price_amount: 1900,
      currency: 'USD',
      compare_at_price: null,
      download_limit: 3,
      access_days: 365,
      license_text: 'Personal use only.',
      published_at: null,
      fileIds: ['fil_demo_posing_guide_pdf'],
      ageDays: 10,
    },
  ]
  for (const { fileIds, ageDays, ...product } of products) {
    const files = fileIds.flatMap((id) => {
      const file = rows.get(id)
      return file
        ? [{ file_id: id, name: file.filename, content_type: file.content_type, size: file.size }]
        : []
    })
    await db
      .insertInto('digital_products')
      .values({
        ...product,
        price: usd(product.price_amount),
        files: JSON.stringify(files),
        created_at: now - ageDays * DAY,
        updated_at: now - Math.min(ageDays, 5) * DAY,
      })
      .execute()
  }
}
