// Token counts by js-tiktoken, an independent implementation of
// tiktoken with its own copy of the ranks, for the differential test of
// `ace-validate --tokens` (tests/cli/tokens.rs). Special tokens are
// counted as the text they are, as ace-tools counts them.
// Usage: node tokens.mjs ENCODING FILE...   (prints `COUNT FILE` per file)
import { readFileSync } from "node:fs";
import { getEncoding } from "js-tiktoken";

const [encoding, ...files] = process.argv.slice(2);
const enc = getEncoding(encoding);
for (const f of files) {
  const text = readFileSync(f, "utf8");
  console.log(`${enc.encode(text, [], []).length} ${f}`);
}
