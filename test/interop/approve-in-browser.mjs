#!/usr/bin/env node
// The person's part of the README walkthrough, over HTTP as a browser does it: opens the
// authorization URL, signs in as PORTICO_EMAIL / PORTICO_PASSWORD, approves on the consent
// page, and prints where the browser is finally sent (the client's callback URL).
const [authorizationUrl] = process.argv.slice(2)
const { PORTICO_EMAIL: email = '', PORTICO_PASSWORD: password = '' } = process.env
const jar = new Map()

async function visit(target, init = {}) {
  const headers = new Headers(init.headers)
  if (jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '))
  const response = await fetch(new URL(target, authorizationUrl), {
    ...init,
    headers,
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  })
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';')
    const at = pair.indexOf('=')
    jar.set(pair.slice(0, at), pair.slice(at + 1))
  }
  return response
}

const submit = (path, fields) =>
  visit(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  })

const field = (page, name) =>
  (new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '').replaceAll('&amp;', '&')

function fail(message) {
  console.error(message)
  process.exit(1)
}

let response = await visit(authorizationUrl)
let location = response.headers.get('location') ?? ''
if (response.status === 303 && location.startsWith('/login')) {
  const page = await (await visit(location)).text()
  response = await submit('/login', {
    csrf: field(page, 'csrf'),
    request: field(page, 'request'),
    email,
    password,
  })
  if (response.status !== 303) fail(`sign-in failed with ${response.status}`)
  response = await visit(response.headers.get('location') ?? '')
}
if (response.status !== 200) fail(`expected the consent page, got ${response.status}`)
const consent = await response.text()
response = await submit('/oauth/authorize/decision', {
  request: field(consent, 'request'),
  csrf: field(consent, 'csrf'),
  decision: 'approve',
})
location = response.headers.get('location') ?? ''
if (response.status !== 303 || location === '') fail(`the decision answered ${response.status}`)
console.log(location)
