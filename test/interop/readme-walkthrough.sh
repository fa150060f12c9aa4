#!/usr/bin/env bash
# Runs the README's "Registering a client and running the flow" walkthrough against a
# started Portico and checks every answer. The commands are taken from the README's ```sh
# blocks at run time and run as written, with http://127.0.0.1:3000 replaced by the server
# under test; the person's part (sign in, approve) is done by approve-in-browser.mjs.
#
# Usage: PORTICO_EMAIL=… PORTICO_PASSWORD=… readme-walkthrough.sh README.md http://127.0.0.1:PORT
# Prints one "ok N - …" line per check; exits non-zero at the first failed check.
set -euo pipefail

readme=$1
base=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

checks=0
ok() {
  checks=$((checks + 1))
  echo "ok $checks - $*"
}
fail() {
  echo "not ok - $*" >&2
  exit 1
}

# check FILE DESCRIPTION EXPRESSION: the JSON in FILE (as `j`) satisfies the JS expression.
check() {
  node -e '
    const [file, description, expression] = process.argv.slice(1)
    const text = require("node:fs").readFileSync(file, "utf8")
    let j
    try { j = JSON.parse(text) } catch { console.error(`${description}: not JSON: ${text}`); process.exit(1) }
    if (!new Function("j", `return (${expression})`)(j)) {
      console.error(`${description}: ${expression} does not hold for ${text}`)
      process.exit(1)
    }' "$1" "$2" "$3" || fail "$2"
  ok "$2"
}

# field FILE NAME: a top-level string of the JSON in FILE.
field() {
  node -e 'const j = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(String(j[process.argv[2]] ?? ""))' "$1" "$2"
}

# The ```sh blocks of the section, one file each, with the server under test put in.
awk -v dir="$work" '
  /^## / { inside = ($0 == "## Registering a client and running the flow") }
  inside && /^```sh$/ { n += 1; block = 1; next }
  block && /^```$/ { block = 0; next }
  block { gsub(/http:\/\/127\.0\.0\.1:3000/, base); print > (dir "/block-" n ".sh") }
' base="$base" "$readme"

# Splits a block into its commands: a line ending in a backslash continues the command, and
# comment lines are the README's notes to the reader. One command per NUL-terminated record.
commands() {
  awk '
    /^[[:space:]]*#/ && command == "" { next }
    { command = command (command == "" ? "" : "\n") $0 }
    !/\\$/ { if (command != "") printf "%s%c", command, 0; command = "" }
  ' "$1"
}

# run N: runs the commands of block N in this shell, so that variables carry on as they
# would for a reader, each command's output in $work/out-N-K.
run() {
  local k=0 command
  while IFS= read -r -d '' command; do
    k=$((k + 1))
    eval "$command" </dev/null >"$work/out-$1-$k"
  done < <(commands "$work/block-$1.sh")
  [ "$k" = "$2" ] || fail "block $1 of the walkthrough has $k commands, this test knows $2: update it"
}

[ "$(ls "$work" | wc -l)" = 5 ] ||
  fail "expected 5 sh blocks in the README section, found $(ls "$work" | wc -l): update this test"

# Metadata.
run 1 1
check "$work/out-1-1" 'metadata names the issuer, registration, S256 and iss support' \
  "j.issuer === '$base' && j.registration_endpoint === '$base/api/oauth/register' &&
   j.code_challenge_methods_supported.join() === 'S256' &&
   j.authorization_response_iss_parameter_supported === true"

# 1. Register.
run 2 1
check "$work/out-2-1" 'registration answers a public client for the loopback callback' \
  "/^pci_/.test(j.client_id) && j.redirect_uris.join() === 'http://127.0.0.1:8765/callback' &&
   j.token_endpoint_auth_method === 'none' && j.client_name === 'My CLI'"
CLIENT_ID=$(field "$work/out-2-1" client_id)

# 2. The authorization URL, and the person approving in the browser.
run 3 4
url=$(cat "$work/out-3-4")
case "$url" in
  "$base/oauth/authorize?response_type=code&client_id=$CLIENT_ID&"*"&state=$STATE&code_challenge=$CHALLENGE&code_challenge_method=S256") ok 'the authorization URL carries the client, the state and the S256 challenge' ;;
  *) fail "unexpected authorization URL: $url" ;;
esac
[ "${#VERIFIER}" -ge 43 ] || fail "the verifier is too short for RFC 7636: ${#VERIFIER}"
callback=$(node "$here/approve-in-browser.mjs" "$url")
node -e '
  const [callback, state, issuer] = process.argv.slice(1)
  const url = new URL(callback)
  const ok = url.origin + url.pathname === "http://127.0.0.1:8765/callback" &&
    url.searchParams.get("state") === state && url.searchParams.get("iss") === issuer &&
    /^pac_/.test(url.searchParams.get("code") ?? "")
  if (!ok) { console.error(`unexpected callback ${callback}`); process.exit(1) }
' "$callback" "$STATE" "$base" || fail 'callback'
ok 'the browser lands on the callback with code, the same state, and iss'
CODE=$(node -e 'process.stdout.write(new URL(process.argv[1]).searchParams.get("code"))' "$callback")

# 3. Exchange the code.
run 4 1
check "$work/out-4-1" 'the code is exchanged for access, refresh and ID tokens' \
  "/^pat_/.test(j.access_token) && j.token_type === 'Bearer' && j.expires_in === 3600 &&
   j.scope === 'openid profile courses:read' && /^prt_/.test(j.refresh_token) &&
   j.id_token.split('.').length === 3"
ACCESS_TOKEN=$(field "$work/out-4-1" access_token)
REFRESH_TOKEN=$(field "$work/out-4-1" refresh_token)

# 4. Call the API, userinfo, refresh, revoke.
run 5 4
check "$work/out-5-1" 'the API index knows the caller and the granted scopes' \
  "j.object === 'api_index' && j.caller.client_id === '$CLIENT_ID' &&
   j.scopes.includes('courses:read')"
check "$work/out-5-2" 'userinfo answers sub and the profile claims' \
  "typeof j.sub === 'string' && typeof j.name === 'string' && j.email === undefined"
check "$work/out-5-3" 'the refresh rotates both tokens' \
  "/^pat_/.test(j.access_token) && j.access_token !== '$ACCESS_TOKEN' &&
   /^prt_/.test(j.refresh_token) && j.refresh_token !== '$REFRESH_TOKEN'"
[ ! -s "$work/out-5-4" ] || fail "revocation answered a body: $(cat "$work/out-5-4")"
ok 'revocation answers 200 with no body'

# The revocation ended the grant: the tokens the refresh gave are dead too.
curl -s "$base/api/v1" -H "authorization: Bearer $(field "$work/out-5-3" access_token)" >"$work/after-1"
check "$work/after-1" 'after revocation the refreshed access token is refused' \
  "j.status === 401 && j.error === 'invalid_token'"
curl -s "$base/api/oauth/token" -d grant_type=refresh_token \
  -d refresh_token="$(field "$work/out-5-3" refresh_token)" -d client_id="$CLIENT_ID" >"$work/after-2"
check "$work/after-2" 'after revocation the refreshed refresh token is refused' \
  "j.error === 'invalid_grant'"

echo "walkthrough: $checks checks passed"
