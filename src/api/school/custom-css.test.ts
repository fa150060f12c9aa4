import { describe, expect, it } from 'vitest'
import { findCssProblem } from './custom-css.js'

/** Each refused stylesheet, with the words its refusal must carry. */
const REFUSED: readonly [string, string, RegExp][] = [
  ['@import', '@import url("https://evil.example/x.css");', /@import/],
  ['@import of a string', '@import "https://evil.example/x.css";', /@import/],
  ['@import, upper case', '@IMPORT "x.css";', /@import/],
  ['@import, escape-spelled', '@\\69mport "x.css";', /@import/],
  ['@import, escape-spelled with a trailing space', '@\\000069 mport "x.css";', /@import/],
  ['@import, a comment inside the keyword', '@im/**/port "x.css";', /at-rule|@import/],
  [
    '@font-face (remote fonts)',
    '@font-face{font-family:x;src:url(https://e.example/f.woff)}',
    /@font-face/,
  ],
  ['@namespace', '@namespace svg url(http://www.w3.org/2000/svg);', /@namespace/],
  ['@-moz-document', '@-moz-document url-prefix(){a{color:red}}', /at-rule/],
  ['url() to http:', 'a{background:url(http://evil.example/p.png)}', /https/],
  [
    'url() to javascript:',
    'a{background:url(javascript:alert(1))}',
    /https|malformed|single string/,
  ],
  [
    'url() to a data: URL',
    'a{background:url("data:image/svg+xml,<svg onload=alert(1)>")}',
    /https/,
  ],
  ['url() relative', 'a{background-image:url(/x.png)}', /https/],
  ['url() protocol-relative', 'a{background-image:url(//evil.example/x.png)}', /https/],
  [
    'url() with an escaped name',
    'a{background:u\\72l(javascript:alert(1))}',
    /https|malformed|single string/,
  ],
  [
    'url() with an escaped scheme',
    'a{background:url(java\\73 cript:alert(1))}',
    /https|malformed|single string/,
  ],
  [
    'url() with an escaped script URL',
    'a{background:url(java\\73 cript:alert\\28 1\\29)}',
    /https/,
  ],
  ['url() of an escaped string', 'a{background:url("java\\73 cript:alert(1)")}', /https/],
  ['url() split by a comment', 'a{background:u/**/rl(javascript:alert(1))}', /url\(\)/],
  ['url() outside an image property', 'a{cursor:url(https://e.example/c.png),auto}', /images/],
  ['url() in a custom property', 'a{--x:url(https://e.example/a.png)}', /images/],
  [
    'url() with a function argument',
    'a{background:url(var(--x))}',
    /https|malformed|single string/,
  ],
  ['expression()', 'a{width:expression(alert(1))}', /expression/],
  ['expression(), escape-spelled', 'a{width:expr\\65ssion(alert(1))}', /expression/],
  ['expression(), a comment inside', 'a{width:expr/**/ession(alert(1))}', /expression/],
  [
    'image-set() with strings',
    'a{background:image-set("https://e.example/a.png" 1x)}',
    /image-set/,
  ],
  ['src()', 'a{background:src("https://e.example/a.png")}', /src\(\)/],
  ['javascript: in a string', 'a{content:"javascript:alert(1)"}', /script/],
  ['javascript:, escape-spelled', 'a{content:"java\\73 cript:alert(1)"}', /script/],
  ['behavior', 'a{behavior:url(x.htc)}', /behavior/],
  ['behavior, escape-spelled', 'a{beh\\61vior:url(x.htc)}', /behavior/],
  ['behavior, a comment inside', 'a{beha/**/vior:x}', /behavior/],
  ['-moz-binding', 'a{-moz-binding:url(x.xml#x)}', /binding/],
  ['ending the style element', 'a{color:red}</style><script>alert(1)</script>', /style element/],
  [
    'ending it from inside a string',
    'a{content:"</style><script>alert(1)</script>"}',
    /style element/,
  ],
  ['an unterminated string', 'a{content:"open\n}', /unterminated/],
  ['a malformed url()', 'a{background:url(https://e.example/a b.png)}', /malformed/],
]

describe('custom_css refused, whatever the spelling', () => {
  for (const [attack, css, words] of REFUSED) {
    it(`refuses ${attack}`, () => {
      const problem = findCssProblem(css)
      expect(problem?.message).toMatch(words)
    })
  }

  it('names the line of the offending token', () => {
    expect(findCssProblem('a{color:red}\n\nb{background:url(http://x/a.png)}')?.line).toBe(3)
  })
})

describe('custom_css accepted', () => {
  for (const css of [
    '',
    'a{color:#1f6feb}',
    '.hero{background:url(https://cdn.example/hero.jpg) center/cover no-repeat}',
    '.hero{background-image:url("https://cdn.example/a b.png")}',
    'ul{list-style-image:url( https://cdn.example/dot.svg )}',
    '@media (width < 600px){.grid{grid-template-columns:1fr}}',
    '@supports (display:grid){.grid{display:grid}}',
    '@keyframes fade{from{opacity:0}to{opacity:1}}',
    '/* brand colours */ :root{--brand:#f59e0b} a:hover{color:var(--brand)}',
    '.card{box-shadow:0 1px 2px rgb(0 0 0 / 10%);transition:transform .2s cubic-bezier(.2,.8,.2,1)}',
    '.title::before{content:"\\2014  "}',
    '.note{content:"behaviour matters"}',
    '.hero{background:url(h\\74tps://cdn.example/escaped.png)}',
  ]) {
    it(`accepts ${JSON.stringify(css.slice(0, 60))}`, () => {
      expect(findCssProblem(css)).toBeUndefined()
    })
  }
})
