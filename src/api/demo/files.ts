import type { AppDeps } from '../../app-deps.js'
import { saveFile } from '../../storage/file-bytes/records.js'
import { fileStoreOf } from '../../storage/file-bytes/store.js'
import type { Db } from '../../storage/schema.js'
import type { FilePurpose } from '../../storage/tables/storage.js'

const DAY = 86_400_000

/** The school's logo, a public file of Portico's own storage: the appearance's `logo_url`. */
export const DEMO_LOGO = { id: 'fil_demo_school_logo', filename: 'brightframe-logo.png' } as const

const ZIP = [
  'UEsDBBQAAAgAAAAAAABEBVeeDgEAAA4BAAAjAAAAQnJpZ2h0ZnJhbWUgUHJlc2V0cy9Hb2xkZW4gSG91ci54bXA8',
  'P3htbCB2ZXJzaW9uPSIxLjAiPz4KPHg6eG1wbWV0YSB4bWxuczp4PSJhZG9iZTpuczptZXRhLyI+PHJkZjpSREYg',
  'eG1sbnM6cmRmPSJodHRwOi8vd3d3LnczLm9yZy8xOTk5LzAyLzIyLXJkZi1zeW50YXgtbnMjIj48cmRmOkRlc2Ny',
  'aXB0aW9uIHhtbG5zOmNycz0iaHR0cDovL25zLmFkb2JlLmNvbS9jYW1lcmEtcmF3LXNldHRpbmdzLzEuMC8iIGNy',
  'czpQcmVzZXRUeXBlPSJOb3JtYWwiIGNyczpFeHBvc3VyZTIwMTI9IiswLjM1Ii8+PC9yZGY6UkRGPjwveDp4bXBt',
  'ZXRhPgpQSwMEFAAACAAAAAAAALv6f7YOAQAADgEAACIAAABCcmlnaHRmcmFtZSBQcmVzZXRzL01vb2R5IEJsdWUu',
  'eG1wPD94bWwgdmVyc2lvbj0iMS4wIj8+Cjx4OnhtcG1ldGEgeG1sbnM6eD0iYWRvYmU6bnM6bWV0YS8iPjxyZGY6',
  'UkRGIHhtbG5zOnJkZj0iaHR0cDovL3d3dy53My5vcmcvMTk5OS8wMi8yMi1yZGYtc3ludGF4LW5zIyI+PHJkZjpE',
  'ZXNjcmlwdGlvbiB4bWxuczpjcnM9Imh0dHA6Ly9ucy5hZG9iZS5jb20vY2FtZXJhLXJhdy1zZXR0aW5ncy8xLjAv',
  'IiBjcnM6UHJlc2V0VHlwZT0iTm9ybWFsIiBjcnM6RXhwb3N1cmUyMDEyPSItMC4yMCIvPjwvcmRmOlJERj48L3g6',
  'eG1wbWV0YT4KUEsDBBQAAAgAAAAAAAB6j/GSDgEAAA4BAAAmAAAAQnJpZ2h0ZnJhbWUgUHJlc2V0cy9DbGVhbiBQ',
  'b3J0cmFpdC54bXA8P3htbCB2ZXJzaW9uPSIxLjAiPz4KPHg6eG1wbWV0YSB4bWxuczp4PSJhZG9iZTpuczptZXRh',
  'LyI+PHJkZjpSREYgeG1sbnM6cmRmPSJodHRwOi8vd3d3LnczLm9yZy8xOTk5LzAyLzIyLXJkZi1zeW50YXgtbnMj',
  'Ij48cmRmOkRlc2NyaXB0aW9uIHhtbG5zOmNycz0iaHR0cDovL25zLmFkb2JlLmNvbS9jYW1lcmEtcmF3LXNldHRp',
  'bmdzLzEuMC8iIGNyczpQcmVzZXRUeXBlPSJOb3JtYWwiIGNyczpFeHBvc3VyZTIwMTI9IiswLjEwIi8+PC9yZGY6',
  'UkRGPjwveDp4bXBtZXRhPgpQSwMEFAAACAAAAAAAAJUGk9k2AAAANgAAAAoAAABSRUFETUUudHh0SW1wb3J0IHRo',
  'ZSAueG1wIGZpbGVzIGluIExpZ2h0cm9vbTogUHJlc2V0cyA+IEltcG9ydC4KUEsBAhQAFAAACAAAAAAAAEQFV54O',
  'AQAADgEAACMAAAAAAAAAAAAAAAAAAAAAAEJyaWdodGZyYW1lIFByZXNldHMvR29sZGVuIEhvdXIueG1wUEsBAhQA',
  'FAAACAAAAAAAALv6f7YOAQAADgEAACIAAAAAAAAAAAAAAAAATwEAAEJyaWdodGZyYW1lIFByZXNldHMvTW9vZHkg',
  'Qmx1ZS54bXBQSwECFAAUAAAIAAAAAAAAeo/xkg4BAAAOAQAAJgAAAAAAAAAAAAAAAACdAgAAQnJpZ2h0ZnJhbWUg',
  'UHJlc2V0cy9DbGVhbiBQb3J0cmFpdC54bXBQSwECFAAUAAAIAAAAAAAAlQaT2TYAAAA2AAAACgAAAAAAAAAAAAAA',
  'AADvAwAAUkVBRE1FLnR4dFBLBQYAAAAABAAEAC0BAABNBAAAAAA=',
].join('')

const PREVIEW = [
  'iVBORw0KGgoAAAANSUhEUgAAAEAAAAAoCAIAAADBrGu+AAAAWUlEQVR4nO3PsQkAIBDAwO/dv3VLe4ewOIRABrjM',
  '2evrhgsa0IIGtKABLWhACxrQgga0oAEtaEALGtCCBrSgAS1oQAsa0IIGtKABLWhACxrQgga0oAEteOwC/Ros8ZxB',
  'ji8AAAAASUVORK5CYII=',
].join('')

const CHECKLIST = [
  'JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoK',
  'PDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUg',
  'L1BhZ2UgL1BhcmVudCAyIDAgUiAvTWVkaWFCb3ggWzAgMCA2MTIgNzkyXSAvQ29udGVudHMgNCAwIFIgL1Jlc291',
  'cmNlcyA8PCAvRm9udCA8PCAvRjEgNSAwIFIgPj4gPj4gPj4KZW5kb2JqCjQgMCBvYmoKPDwgL0xlbmd0aCAzNzQg',
  'Pj4Kc3RyZWFtCkJUIC9GMSAxNCBUZiA3MiA3MjAgVGQgKEJyaWdodGZyYW1lIEdlYXIgQ2hlY2tsaXN0KSBUaiBF',
  'VApCVCAvRjEgMTQgVGYgNzIgNjk2IFRkIChbIF0gQ2FtZXJhIGJvZHkgYW5kIHR3byBjaGFyZ2VkIGJhdHRlcmll',
  'cykgVGogRVQKQlQgL0YxIDE0IFRmIDcyIDY3MiBUZCAoWyBdIDM1bW0gb3IgNTBtbSBwcmltZSBsZW5zKSBUaiBF',
  'VApCVCAvRjEgMTQgVGYgNzIgNjQ4IFRkIChbIF0gVHdvIGZvcm1hdHRlZCBtZW1vcnkgY2FyZHMpIFRqIEVUCkJU',
  'IC9GMSAxNCBUZiA3MiA2MjQgVGQgKFsgXSBMZW5zIGNsb3RoIGFuZCByb2NrZXQgYmxvd2VyKSBUaiBFVApCVCAv',
  'RjEgMTQgVGYgNzIgNjAwIFRkIChbIF0gUmVmbGVjdG9yIGZvciBwb3J0cmFpdHMpIFRqIEVUCmVuZHN0cmVhbQpl',
  'bmRvYmoKNSAwIG9iago8PCAvVHlwZSAvRm9udCAvU3VidHlwZSAvVHlwZTEgL0Jhc2VGb250IC9IZWx2ZXRpY2Eg',
  'Pj4KZW5kb2JqCnhyZWYKMCA2CjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAwMDAwMDAwOSAwMDAwMCBuIAowMDAwMDAw',
  'MDU4IDAwMDAwIG4gCjAwMDAwMDAxMTUgMDAwMDAgbiAKMDAwMDAwMDI0MSAwMDAwMCBuIAowMDAwMDAwNjY2IDAw',
  'MDAwIG4gCnRyYWlsZXIKPDwgL1NpemUgNiAvUm9vdCAxIDAgUiA+PgpzdGFydHhyZWYKNzM2CiUlRU9GCg==',
].join('')

const POSING = [
  'JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoK',
  'PDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUg',
  'L1BhZ2UgL1BhcmVudCAyIDAgUiAvTWVkaWFCb3ggWzAgMCA2MTIgNzkyXSAvQ29udGVudHMgNCAwIFIgL1Jlc291',
  'cmNlcyA8PCAvRm9udCA8PCAvRjEgNSAwIFIgPj4gPj4gPj4KZW5kb2JqCjQgMCBvYmoKPDwgL0xlbmd0aCAxMTkg',
  'Pj4Kc3RyZWFtCkJUIC9GMSAxNCBUZiA3MiA3MjAgVGQgKFBvc2luZyBHdWlkZSBcKGRyYWZ0XCkpIFRqIEVUCkJU',
  'IC9GMSAxNCBUZiA3MiA2OTYgVGQgKENoYXB0ZXIgMTogQW5nbGVzIGFuZCB3ZWlnaHQgc2hpZnQpIFRqIEVUCmVu',
  'ZHN0cmVhbQplbmRvYmoKNSAwIG9iago8PCAvVHlwZSAvRm9udCAvU3VidHlwZSAvVHlwZTEgL0Jhc2VGb250IC9I',
  'ZWx2ZXRpY2EgPj4KZW5kb2JqCnhyZWYKMCA2CjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAwMDAwMDAwOSAwMDAwMCBu',
  'IAowMDAwMDAwMDU4IDAwMDAwIG4gCjAwMDAwMDAxMTUgMDAwMDAgbiAKMDAwMDAwMDI0MSAwMDAwMCBuIAowMDAw',
  'MDAwNDExIDAwMDAwIG4gCnRyYWlsZXIKPDwgL1NpemUgNiAvUm9vdCAxIDAgUiA+PgpzdGFydHhyZWYKNDgxCiUl',
  'RU9GCg==',
].join('')

const COVER = [
  'iVBORw0KGgoAAAANSUhEUgAAAHgAAABQCAIAAABd+SbeAAAAqElEQVR4nO3QAQkAIADAMJsY0eCWsIXCHTzA2Zhr',
  '60Lj+cEngQbdCjToVqBBtwINuhVo0K1Ag24FGnQr0KBbgQbdCjToVqBBtwINuhVo0K1Ag24FGnQr0KBbgQbdCjTo',
  'VqBBtwINuhVo0K1Ag24FGnQr0KBbgQbdCjToVqBBtwINuhVo0K1Ag24FGnQr0KBbgQbdCjToVqBBtwINuhVo0K1A',
  'g24FGnSrA3j0PLrfnKySAAAAAElFTkSuQmCC',
].join('')

/**
 * The school's logo, 64×64: a white rounded square edged in the demo's primary blue, a blue
 * “B” and an amber dot (its accent colour), so it stands out on the blue header and on white.
 * Drawn as an SVG of paths (no font) and rendered to PNG once in Chromium: SVG is no upload
 * type (it is markup), so the logo is a PNG like any school's.
 */
const LOGO = [
  'iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAYAAACqaXHeAAAHMUlEQVR4nORbCWxURRj+5u12t/Rgoe22VnvgFUWg',
  'KILx1hBE8AyCR2I8osQDCqWKGI1BU0k0Rmu7KEYwRmOMGg8SQEkVRCExiFgOIYAG6YXAdgulxy7d7b7x/x/dhqNv',
  'actQ3lu+5GVn5p/39s0/M//5xoleIK/0cIaIhidqELdByBGQyJVCegXEIFgAEjIkpPBTaZ8UYgvV1zhEUlVNxdDm',
  'U90r4hGz5jWmp3SIBfTgGdTRCRtBAp1CwhfslK82LspuM+tnyoC82YEpmtAX0yxncf2ibAcmjnLh5stdyB2iIXuw',
  'hlR3XP4NGNo7JA4c1rGfrnU7w1i+qQMNB/UuqjwgIabXVXpX9HRvjyMoLPG/LKVYIGj0F9PA509JxS3DXbAT1uwI',
  'Y8HSduz2R3k16FLihXqft/zEficxoHC2/z0IMZPLc+9MQfFtKbAzfFVBlK8MGmWa1Mo6X9acY+nHMSC/pLFUA8oz',
  '0wSWTPdgzDBbbXtT/L47gmc+bsGhdhKPOkrrFnorYrRuBhTMCkwQmqxKcgjxbclgUVSQhETClroIplW2yEhUSl3X',
  'JtcvzPyR2zWDOku6IfQvue57NC3hBs8YTWOqeCSNJ1wTWvTzYY/LZG43GFAgmkqFEJmTR7swebQbiYo7r3RjwkgX',
  'WLPpnqYSbjMYoAlpCIa5d9hb4PUGpZOMMUoNR8es5ZcExpGayLn6QicuzkkMoRcPI/KcKCpwko2E8/KLG8dqAvpU',
  'Joy/wl56/nQQGysJ/am0+sU1XElEwWeGovzYShfjuHQBF9m8PVdw/lCH8UuW7vlOEom5XMnLcEAFhs0JoD8YRKsy',
  'Z7CDXk4jleXEuIuScCP5HS41r3Uc+D+6kMsrIJ1LyWd5B4TCQE0galy//RPBB6tDSE8WePDaZMwkc3xoqjrHa/Cg',
  '7mdZe923HpH46JcQbn79IH7YHMaZgC02PjNixict+Gr9EaiGrSTf/G/aDJ9fJWzFgI5O4N0u11YVBtT0q6nI6rGd',
  'B1bfFMX2vZ14/8cg/t4fNX3G9xTtef3+NGXawRIrwE3TcEmOA/eOcaPqxaG4qtB8Xtoo/LXx3whUwXJbgIwTlE1L',
  'i9unNhCFKlhSBowiUzUtTsC1jbSCKlhWCGammzOgIEudeWhJ/5fD3LUBc3XHkWpVsCQDOJJrBhaQLDBVwVIMYHXI',
  'g//w55BpnxfuSoVKDCgDzIyYcKdEPWVyNtdGjsnonIyX7knF9Zeq9doGlAGVVf2z4ihsheKJKXh6vPpcrOWDgByo',
  '+exZj9J9fyws7wvsa9bx8KLDeGtFO5ra1On/GGzhDHHmd9GqEO4tP4S6pnPYG2QB+YCvGf4WdUwYUBnwRbHHlBYk',
  '42cvDXADOToryOMzA8cDij9txVf0LKEgSjagDLjuklOrsEdvSsZjdD25pAUtoZ73/AbK9v66M4Jbh5++SrTkFuCI',
  '8MdPeeL2WbmlAypgWRkwllJ1l55nrvq21qmJCVhaCF6Wa75D41mMfYGlDaHdBzpNaboik8CyDNi1L2pcZlCVyrMk',
  'Aw62S8ykPEC8WY4nH/oCyzDgPzJ5q/dEsG5XBN/9cQSRU4T9bh+l5kuWAWVAfxOnJ8JL4bLbi2zIAFV4ZUqakU1W',
  'AdsxgC1Fzh9E61cisvUd6M07jHZtyHAkFT0PR/7kvjzOPs6Qk950FgVFyqamIVq7HB2r7ofuX0/hpMPGxWVuY1qf',
  'nguLg6NB941zo2RSKvIzjs5X5K9y0/5McxTejd7CkgzgDxhG5jkx5sIkPHJDMnI8xy9UvXmX6b3xaD3BKSHbBURq',
  'MAykKBAsZglQK4HzDgwpZRuz9gBXAq1qIy1nEtqQy/pFi6E7oCKwXxMSfi43ttiHAUmjnusXLYZuBkhiAHGhmsub',
  'atWlnM80WMi5J3wNLftawOUxLi5zW28E4ObaLidLaNXOqHQsdwh9Bn94MP1WS5yB6hVY3/dV58ewvLormCKxTGs4',
  'krGahEFwE3FFVZDByviT/I1tDZ3GSbO6jMw1GhaLiIRYxMSype1IdMz/tusAmUQlXhO6oWBDySiTEoc27unEJ2tD',
  'SFQsWRPC9oYo679G3eEt4zaDAYG3vK1Sag9RUS9bGpSbahJvK/CY3lgWZANA1wWmNbwrjJnuNrH4DA0ph7m6lGL6',
  'Ry3GF1uJgu20559YwgEWKUjezamvzF4bo5kem3NTyH3xkx7ccrm9P6Pn84N8YqyDF7WU79f6souPpfeYWymYHZhH',
  'vd/U+LDwSBeeGp9ihKntBJZnH64O4qdtYRo3JA10Xq3P+/aJ/eIenXVAVlCPAq4XZmmYRFEYPkHKAckcj0OJ76AC',
  '/O2g3/zobI0OUVJf6V3W072nzK7lz/I/QS7pbNoWo2EjkLSrpnn31fmyPo3Xr9fpxZxnWrNdSaG7NCHG0noaQX9x',
  'Rexg9dkGrfCAkGI7/W4l83ZDWHdX7V+Y3tibe/8HAAD//wdQBroAAAAGSURBVAMAyEmXncpu6OwAAAAASUVORK5C',
  'YII=',
].join('')

interface DemoFile {
  readonly id: string
  readonly filename: string
  readonly contentType: string
  readonly purpose: FilePurpose
  /** The bytes, base64: small placeholders, real enough to open. */
  readonly base64: string
}

/**
 * The demo's uploads: the preset pack's archive (three .xmp presets and a README, stored)
 * and preview, the checklist and posing guide PDFs (one page of text each), and the pack's
 * cover, made once with the encoders in test/support/files.ts; and the school's logo
 * (1.9 KB). 6.4 KB in all, in the source, so the build carries them without copying files.
 */
export const DEMO_FILES: readonly DemoFile[] = [
  {
    id: 'fil_demo_lightroom_presets_zip',
    filename: 'brightframe-lightroom-presets.zip',
    contentType: 'application/zip',
    purpose: 'digital_product',
    base64: ZIP,
  },
  {
    id: 'fil_demo_lightroom_presets_preview',
    filename: 'preset-previews.png',
    contentType: 'image/png',
    purpose: 'digital_product',
    base64: PREVIEW,
  },
  {
    id: 'fil_demo_gear_checklist_pdf',
    filename: 'brightframe-gear-checklist.pdf',
    contentType: 'application/pdf',
    purpose: 'digital_product',
    base64: CHECKLIST,
  },
  {
    id: 'fil_demo_posing_guide_pdf',
    filename: 'posing-guide-draft.pdf',
    contentType: 'application/pdf',
    purpose: 'digital_product',
    base64: POSING,
  },
  {
    id: 'fil_demo_lightroom_presets_cover',
    filename: 'lightroom-presets-cover.png',
    contentType: 'image/png',
    purpose: 'page_asset',
    base64: COVER,
  },
  {
    id: DEMO_LOGO.id,
    filename: DEMO_LOGO.filename,
    contentType: 'image/png',
    purpose: 'logo',
    base64: LOGO,
  },
]

/** Uploads the demo files through the file store (on PostgreSQL, into the database). */
export async function saveDemoFiles(db: Db, deps: AppDeps, now: number): Promise<void> {
  const store = fileStoreOf(deps)
  for (const file of DEMO_FILES)
    await saveFile(db, store, {
      id: file.id,
      bytes: Buffer.from(file.base64, 'base64'),
      contentType: file.contentType,
      filename: file.filename,
      purpose: file.purpose,
      uploadedBy: null,
      now: now - 60 * DAY,
    })
}
