// Differential check against the official TRON parser: for every
// `NAME.tron` in the folder given, TRON.parse must give the same JSON as
// `NAME.json` (our JSON output of the same document). Numbers compare by
// value and object key order is ignored, as in notes §5.6. Nothing else is
// forgiven: our braced TRON writes no `null` for an absent field, so the
// parser's JSON must have exactly our keys. With OUT, each parse of a
// declared document whose source passes its schema is saved as OUT/official-tron__NAME.json
// for check-jsonschema (tests/schemas/check.py).
// Usage: node compare.mjs DIR [OUT]   (prints one line per file; exit 1 on
// any difference or parse failure)
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRON } from "@tron-format/tron";

function same(a, b, path) {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return a === b ? null : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.join("\u0000") !== kb.join("\u0000")) {
    return `${path}: keys ${JSON.stringify(ka)} != ${JSON.stringify(kb)}`;
  }
  for (const k of ka) {
    const d = same(a[k], b[k], `${path}/${k}`);
    if (d) return d;
  }
  return null;
}

const dir = process.argv[2];
const save = process.argv[3];
let failures = 0;
let checked = 0;
for (const name of readdirSync(dir).filter((n) => n.endsWith(".tron")).sort()) {
  const stem = name.slice(0, -5);
  const ours = JSON.parse(readFileSync(join(dir, `${stem}.json`), "utf8"));
  let theirs;
  try {
    theirs = TRON.parse(readFileSync(join(dir, name), "utf8"));
  } catch (e) {
    console.log(`FAIL ${stem}: @tron-format/tron rejects our braced TRON: ${e.message}`);
    failures++;
    continue;
  }
  // A bare playbook (no vAgendaInfo or vContextInfo) declares no version
  // to pick a schema by.
  const declared = theirs && (theirs.vAgendaInfo || theirs.vContextInfo);
  if (save && declared && !stem.includes(".unchecked.")) {
    writeFileSync(join(save, `official-tron__${stem}.json`), JSON.stringify(theirs, null, 2));
  }
  const d = same(theirs, ours, "");
  checked++;
  if (d) {
    console.log(`FAIL ${stem}: ${d}`);
    failures++;
  } else {
    console.log(`ok   ${stem}`);
  }
}
console.log(`${checked} compared, ${failures} failed`);
process.exit(failures === 0 && checked > 0 ? 0 : 1);
