import type { AppDeps } from '../../app-deps.js'
import { saveFile } from '../../storage/file-bytes/records.js'
import { fileStoreOf } from '../../storage/file-bytes/store.js'
import type { Db } from '../../storage/schema.js'
import type { FilePurpose } from '../../storage/tables/storage.js'

const DAY = 86_400_000

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
 * cover. Made once with the encoders in test/support/files.ts; 4.5 KB in all.
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
