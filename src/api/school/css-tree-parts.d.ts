// css-tree's subpath exports ('css-tree/tokenizer', 'css-tree/utils'), which @types/css-tree
// declares only as members of the package's main module: the same functions, typed as there.
declare module 'css-tree/tokenizer' {
  export { tokenize, tokenTypes } from 'css-tree'
}

declare module 'css-tree/utils' {
  export { ident, string, url } from 'css-tree'
}
