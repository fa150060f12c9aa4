/** The one stylesheet of the HTML pages, served from this origin so the CSP needs no inline styles. */
export const STYLESHEET = `
:root {
  color-scheme: light dark;
  --fg: #1b1f24;
  --bg: #f6f7f9;
  --card: #fff;
  --muted: #59636e;
  --accent: #1f6feb;
  --warn-bg: #fff4d6;
  --warn: #7a4b00;
  --err: #b42318;
  --line: #d8dee4;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3;
    --bg: #0d1117;
    --card: #161b22;
    --muted: #9aa4ae;
    --accent: #4c8dff;
    --warn-bg: #3a2a00;
    --warn: #ffd58a;
    --err: #ff7b72;
    --line: #30363d;
  }
}
* {
  box-sizing: border-box;
}
body {
  margin: 0;
  font:
    16px / 1.5 system-ui,
    -apple-system,
    "Segoe UI",
    sans-serif;
  color: var(--fg);
  background: var(--bg);
}
.top {
  padding: 0.75rem 1rem;
  border-bottom: 1px solid var(--line);
  background: var(--card);
}
.top.branded {
  background: var(--school);
  color: var(--school-fg);
  border-bottom-color: transparent;
}
.top {
  display: flex;
  align-items: center;
  gap: 0.6rem;
}
.logo {
  width: 2rem;
  height: 2rem;
  flex: none;
  object-fit: contain;
  background: center / contain no-repeat;
}
.brand {
  font-weight: 600;
}
.bottom {
  max-width: 34rem;
  margin: 0 auto 1.5rem;
  padding: 0 1rem;
  color: var(--muted);
  font-size: 0.8rem;
  text-align: center;
}
main {
  max-width: 34rem;
  margin: 1.5rem auto;
  padding: 0 1rem;
}
.card {
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 10px;
  padding: 1.25rem 1.5rem;
}
h1 {
  font-size: 1.35rem;
  margin: 0 0 1rem;
  overflow-wrap: anywhere;
}
h2 {
  font-size: 1rem;
  margin: 1.25rem 0 0.25rem;
}
h2.write {
  color: var(--err);
}
label {
  display: block;
  margin: 0.75rem 0 0.25rem;
  font-weight: 600;
}
input[type="email"],
input[type="password"],
input[type="text"],
input[type="url"],
select {
  width: 100%;
  padding: 0.6rem 0.7rem;
  font: inherit;
  border: 1px solid var(--line);
  border-radius: 6px;
  background: var(--bg);
  color: var(--fg);
}
button {
  font: inherit;
  padding: 0.6rem 1.1rem;
  margin: 1rem 0.5rem 0 0;
  border-radius: 6px;
  border: 1px solid var(--line);
  background: var(--card);
  color: var(--fg);
  cursor: pointer;
  min-height: 44px;
}
button.primary {
  background: var(--accent);
  border-color: var(--accent);
  color: #fff;
}
button.link {
  border: 0;
  background: none;
  color: var(--accent);
  padding: 0;
  min-height: auto;
  text-decoration: underline;
}
button:focus-visible,
input:focus-visible {
  outline: 3px solid var(--accent);
  outline-offset: 2px;
}
.scopes {
  margin: 0.25rem 0;
  padding-left: 1.2rem;
}
.scopes code {
  color: var(--muted);
  font-size: 0.85em;
}
.scopes.unavailable {
  color: var(--muted);
  text-decoration: line-through;
}
.warning {
  background: var(--warn-bg);
  color: var(--warn);
  padding: 0.6rem 0.8rem;
  border-radius: 6px;
}
.error {
  color: var(--err);
  font-weight: 600;
}
.muted {
  color: var(--muted);
  font-size: 0.9rem;
}
.destination {
  font-weight: 600;
}
form.inline {
  display: inline;
}
code {
  overflow-wrap: anywhere;
}
table {
  width: 100%;
  border-collapse: collapse;
}
th,
td {
  text-align: left;
  padding: 0.4rem 0.3rem;
  border-bottom: 1px solid var(--line);
  vertical-align: top;
}
.card.wide {
  max-width: 60rem;
}
main:has(.wide) {
  max-width: 62rem;
}
.notice {
  border-left: 4px solid var(--accent);
  padding: 0.5rem 0.75rem;
}
.visually-hidden {
  position: absolute;
  width: 1px;
  height: 1px;
  overflow: hidden;
  clip: rect(0 0 0 0);
}
.activity-list {
  padding-left: 1.2rem;
}
.activity-list li {
  margin: 0.4rem 0;
  overflow-wrap: anywhere;
}
.rows {
  list-style: none;
  padding: 0;
  margin: 0;
}
.rows > li {
  border-bottom: 1px solid var(--line);
  padding: 0.5rem 0;
  overflow-wrap: anywhere;
}
.rows > li p {
  margin: 0.2rem 0;
}
.policy-list label {
  font-weight: normal;
}
.pager a {
  margin-right: 1rem;
}
@media (max-width: 40rem) {
  table, thead, tbody, tr, td, th {
    display: block;
  }
  thead {
    display: none;
  }
  td {
    border: 0;
    padding: 0.2rem 0;
  }
  tr {
    border-bottom: 1px solid var(--line);
    padding: 0.5rem 0;
  }
}
`
