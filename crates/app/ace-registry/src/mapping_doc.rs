//! docs/formats/mapping.md: what a conversion between formats promises,
//! and the tables of sections, prefixes and kinds it goes by.

use ace_model::mapping;

/// What every conversion between two formats promises; the first part of
/// docs/formats/mapping.md. tests/migration.rs checks it on every corpus
/// playbook, and tests/properties.rs on generated ones.
const CONTRACT: &str = "## The conversion contract\n\n\
A conversion reads the source into the canonical model and writes the target from it; no \
format knows another. What it promises depends on whether the target is the source's own \
format.\n\n\
**Same format (X -> X).** The reader keeps the file's layout beside the model (key orders, \
indentation, escapes, prose around bullets, the rest of a vAgenda document), and only that \
format's writer uses it. An unchanged skill playbook, skillbook or vAgenda document comes back \
byte for byte; AGENTS.md keeps every byte that is not a bullet. A change touches only what \
changed.\n\n\
**Another format (X -> Y)**, as pandoc does it: a clean file of Y, and a report of what Y could \
not carry.\n\n\
1. **Valid output.** The output passes Y's published schema and `ace-validate` finds no error \
in it. A skill playbook follows `--skill-generation` (default 2, the current generation) and \
passes that generation's `bullet.schema.json`; a vAgenda document passes the core and \
extension schemas of its `--vagenda-version` (default: the source's own version when it is \
vAgenda, else 0.2). CI checks every corpus playbook converted to each with check-jsonschema.\n\
2. **No bookkeeping.** The output holds no other format's layout or bookkeeping (no \
`skill_json`, `agents_md` or `vagenda` keys, no vAgenda document inside a skill playbook) and \
no `null` written for a field that has no value (except where the target's own tools write one: a skillbook's optional skill fields).\n\
3. **Data Y has no field for** goes into Y's extension point under one documented name where Y \
has one: vAgenda's `metadata.aceTools` on the entry (its `extra` for fields of other \
formats), the playbook and the container; playbook.yaml and the canonical JSON hold the whole \
model. The markdown playbook, AGENTS.md, the skill's playbook.json and the skillbook have no \
extension point: what they cannot hold is reported as ACE101 and left out. Nothing is dropped \
without a report.\n\
4. **Values Y requires and X lacks** are derived and reported: a skill `title` from the \
content's first sentence, `tags` from the section and kind, and `bullet-YYYY-MM-DD-NNN` IDs \
(ACE107, ACE106 with `--id-map`); a vAgenda `kind` from the section and a title for the \
playbook; a time without a zone read as UTC and written with `Z` (ACE107); vAgenda's \
`created` and `updated`, and the date of new skill IDs, from `--now` or `SOURCE_DATE_EPOCH`, \
else the input's latest timestamp, else the clock (ACE104; never 1970 unless asked for: a 1970 \
date inside a new ID would be taken for the entry's own by the next conversion); a v2 \
skillbook's `issue` and `keywords` (the content and the section's name, as kayba fills them), \
and an older skillbook's section `general` for an entry with none (ACE107). A value written in another form (a \
confidence level as a number, a status outside Y's set) is ACE105. A section's title or \
prefix that is its key is what a format without them gives back (every writer heads a \
section without a title with its key; a skillbook's IDs are `{key}-N`), and is no loss.\n\
5. **X -> Y -> X** gives back every field Y reported no loss for. Derived values (ACE107) are \
not losses and `--strict` lets them pass. What only X's layout keeps (AGENTS.md's prose and \
comments, the vAgenda document around the playbook: items, narratives, change log) is \
reported as lost (ACE101, field `layout`) by every writer that does not use that layout, so \
`--strict` refuses the trip; `tests/migration.rs` checks every trip of the corpus matrix.\n\
6. **No exact cross-format trips.** There is no option that smuggles X's layout through Y: \
exactness belongs to same-format rewrites.\n\n\
**An input with an error is not converted**: ace-convert prints the findings, exits 1 and \
creates or touches no output file, with or without `--strict`. A file that fails only its \
format's schema (ACE035, ACE048, ACE049) was read and is converted, with the findings \
printed.\n\n\
**The format of an input** is `--from` when given; else the root of a JSON document decides \
when it declares its format (`vAgendaInfo`, `vContextInfo`, the canonical tag, a skillbook's \
`skills` object, v2's among them, or its pre-0.7 `bullets` object beside `sections` or `next_id`, \
a Code Engine export's `playbook` object of its sections, a DannyMac180/ACE dump's bullets with \
the keys only its bullets have); else the \
name (`playbook.json` and `*.playbook.json` are skill-json; `AGENTS.md`, `AGENT.md` and \
`AGENTS.archive.md` agents-md; `*.tron` TRON; `*.vagenda.json`, `*.vcontext.json` vAgenda; \
a `.json` name with `skillbook` in it the skillbook); else the top-level shape (a stray key \
does not change it, and is reported as ACE077). When nothing tells, the message lists every \
format with a one-line description.\n";

/// docs/formats/mapping.md, generated from the model's tables of sections
/// and kinds (`ace_model::mapping`) so that the two cannot drift (`cargo
/// xtask docs`).
pub fn markdown_doc() -> String {
    let mut out = String::from(
        "# Conversions: the contract, sections, prefixes and vAgenda kinds\n\n\
         <!-- Generated by `cargo xtask docs` from crates/app/ace-registry/src/mapping_doc.rs; do not edit. -->\n\n",
    );
    out.push_str(CONTRACT);
    out.push_str(
        "\n## Sections and kinds\n\n\
         The markdown playbook, AGENTS.md and playbook.yaml group entries in sections; vAgenda gives \
         each entry a kind; the skill's playbook.json has neither. A conversion between them goes \
         through the tables below.\n\n\
         ## A kind becomes a section\n\n\
         Writing a vAgenda entry to a format with sections puts it in its kind's section, with \
         that section's ID prefix for new IDs (the ACE playbook format spec: the highest number of the prefix plus one):\n\n\
         | kind | section key | title | prefix |\n|---|---|---|---|\n",
    );
    for r in mapping::TABLE {
        out.push_str(&format!(
            "| `{}` | `{}` | {} | `{}` |\n",
            r.kind, r.key, r.title, r.prefix
        ));
    }
    out.push_str(
        "\n## A section becomes a kind\n\n\
         Writing to vAgenda, a section is looked up by prefix, key or title (case-insensitive) \
         in the rows above and then in these, the sections of the ACE paper's AppWorld and FiNER \
         playbooks and the ACE playbook format spec's examples:\n\n\
         | section key | title | prefix | kind |\n|---|---|---|---|\n",
    );
    for r in mapping::KNOWN {
        out.push_str(&format!(
            "| `{}` | {} | `{}` | `{}` |\n",
            r.key, r.title, r.prefix, r.kind
        ));
    }
    out.push_str(
        "\n## Unknown sections\n\n\
         A section in no row gets its kind from words in its key and title, in this order: \
         `mistake`, `pitfall`, `avoid`, `warning`, `error`, `harm` make a `warning`; `strateg`, \
         `insight`, `tip`, `practice`, `pattern`, `heuristic` a `strategy`; `rule`, `policy`, \
         `guideline`, `must`, `checklist` a `rule`; `learn`, `lesson`, `reflection` a `learning`; \
         anything else is a `note`, the kind that claims least. The section itself is kept in \
         the entry's `metadata.aceTools`, so converting back gives the original section.\n\n\
         A new ID for an entry of an unknown section takes the section's own prefix, or the \
         first three letters of its key, or the prefix of its kind's section; `oth` when there \
         is none of these.\n\n\
         ## Your own table: `--section-map FILE`\n\n\
         `ace-convert --section-map FILE` reads a JSON array of rows that are tried before all \
         of the above, for both directions:\n\n\
         ```json\n\
         [\n  {\"kind\": \"strategy\", \"title\": \"STRATEGIES AND HARD RULES\", \"prefix\": \"shr\"},\n  \
         {\"kind\": \"warning\", \"title\": \"Gotchas\", \"prefix\": \"got\", \"key\": \"gotchas\"}\n]\n\
         ```\n\n\
         `kind` is one of vAgenda's five kinds; `key` defaults to the title's section key \
         (lower case, `&` as `and`, other runs of punctuation as `_`). The first row of a kind \
         is the section that kind is written to.\n",
    );
    out
}
