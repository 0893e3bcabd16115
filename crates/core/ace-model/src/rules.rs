//! The registry of every diagnostic and loss code.
//!
//! Codes are stable: a code is never reused for another meaning. `docs/rules.md`
//! is generated from this table (`cargo xtask docs`) and a test fails when the
//! two disagree.

use crate::severity::Severity;

/// Whether a code reports a finding in an input or a loss in a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    Diagnostic,
    Loss,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub kind: RuleKind,
    pub severity: Severity,
    /// The spec the rule comes from (`ACE playbook format spec`, ...), or
    /// `ace-tools`.
    pub source: &'static str,
    pub summary: &'static str,
    pub doc: &'static str,
}

macro_rules! rules {
    ($( $ident:ident = $code:literal $name:literal $kind:ident $sev:ident $source:literal
        summary: $summary:literal doc: $doc:literal ; )*) => {
        $(
            pub const $ident: Rule = Rule {
                code: $code,
                name: $name,
                kind: RuleKind::$kind,
                severity: Severity::$sev,
                source: $source,
                summary: $summary,
                doc: $doc,
            };
        )*
        /// Every rule, in code order.
        pub const ALL: &[Rule] = &[$($ident),*];
    };
}

rules! {
    PARSE_ERROR = "ACE000" "parse-error" Diagnostic Error "ace-tools"
        summary: "The file is not well-formed in its format and cannot be read."
        doc: "The input could not be parsed at all (for example broken JSON). The message gives the line and column and what was expected there. Nothing is converted from a file with this error.";
    ID_SHAPE = "ACE001" "id-shape" Diagnostic Warning "ACE playbook format spec"
        summary: "Entry ID is not `prefix-NNNNN`, which the spec's tools number by."
        doc: "The ACE playbook format spec shows IDs as three lower-case letters, a dash and five digits (`str-00001`); the paper's own code writes other prefixes (`calc-00014`, `vc-00230`, `misc-00003`, from its section slugs) and reads any ID, numbering new ones by the digits after the last `-`. So those shapes pass: what is reported is an ID those tools cannot number past, with no `-NNN` at its end (`s6`, `formula`), or with capitals or white space, which they never write. Such IDs are read and kept as they are; renumber with a converter that allocates IDs if other tools must number after them.";
    DUPLICATE_ID = "ACE002" "duplicate-id" Diagnostic Error "ACE playbook format spec"
        summary: "Two entries share one ID."
        doc: "IDs identify entries for counter updates, deltas and references, so they must be unique within a playbook (the ACE playbook format spec, File Integrity). Every occurrence after the first is reported, pointing at the first. Give one of the entries a new ID: the highest number for its prefix plus one.";
    MISSING_COUNTERS = "ACE003" "missing-counters" Diagnostic Warning "ACE playbook format spec"
        summary: "Entry has no `helpful=N harmful=M` counters."
        doc: "The ACE playbook format spec requires both counters on every entry. The paper's AppWorld playbooks omit them (`[shr-00001] text`). The entry is read with its counters absent, which is kept distinct from zero; curation cannot judge such an entry until counters are added. Also reported when only one of the two counters is present.";
    MALFORMED_COUNTERS = "ACE004" "malformed-counters" Diagnostic Error "ACE playbook format spec"
        summary: "Counter text after the ID is not `name=integer`."
        doc: "Text such as `helpful=N`, `helpful=1 helpful=2` or a number too large to store follows the ID. The reader does not guess: the whole text after the ID is kept as the entry's content and the entry has no counters. Fix the counters so that each of `helpful`, `harmful` and `neutral` appears at most once with a whole number. In kayba's markdown export (`kayba-md`) the same holds for a skill's `*Tags: helpful=N, harmful=N, neutral=N*` line: one that does not read so is read as text of the skill, which then has no counters. Either way the finding is an error: the file is checked whole, but not converted, applied to or merged until the counters are fixed, since a conversion would carry the counters as text.";
    NEGATIVE_COUNTER = "ACE005" "negative-counter" Diagnostic Error "ACE playbook format spec"
        summary: "A counter is negative."
        doc: "The ACE playbook format spec defines counters as integers greater than or equal to zero: they count how often an entry helped or misled. A negative value usually comes from applying a decrement twice. Set the counter to the true count.";
    CURATION_THRESHOLD = "ACE006" "curation-threshold" Diagnostic Warning "ACE playbook format spec"
        summary: "`harmful > helpful + threshold`: the entry is a pruning candidate."
        doc: "The ACE playbook format spec's curation rule removes an entry once `harmful > helpful + 3`; the threshold can be changed with `--threshold`. The entry is reported so that a person can decide to rewrite or remove it before a curator does.";
    PREFIX_SECTION = "ACE007" "prefix-section-mismatch" Diagnostic Warning "ACE playbook format spec"
        summary: "The ID prefix does not agree with the entry's section."
        doc: "The ACE playbook format spec ties each prefix to one section (`str` to STRATEGIES & INSIGHTS, `cal` to FORMULAS & CALCULATIONS, `mis` to COMMON MISTAKES TO AVOID, `dom` to DOMAIN KNOWLEDGE). Reported when a known prefix sits under another known section, when a section mixes prefixes (each minority entry is reported), or when one prefix is used in several sections. Move the entry or give it an ID with the section's prefix.";
    DUPLICATE_CONTENT = "ACE008" "duplicate-content" Diagnostic Warning "ace_beads curator spec"
        summary: "Two entries have the same normalised content."
        doc: "The ace_beads curator spec treats two bullets as duplicates when `section::normalize(content)` is equal, where normalise trims, lower-cases and collapses white space. Duplicates split the counters of one piece of advice over two IDs. Merge them, keeping the older ID and adding up the counters. The same content filed under two different sections is reported too, naming the other section: the curator's hash cannot see it, but it is the same advice twice.";
    CRLF = "ACE009" "crlf-line-endings" Diagnostic Warning "ACE playbook format spec"
        summary: "The file uses CR LF line endings."
        doc: "The ACE playbook format spec's File Integrity rules require Unix line endings (LF). The reader accepts CR LF and drops the CR; a rewrite writes LF.";
    BOM = "ACE010" "byte-order-mark" Diagnostic Warning "ACE playbook format spec"
        summary: "The file starts with a UTF-8 byte-order mark."
        doc: "A BOM is not part of the playbook and trips line-oriented tools, whose first ID then starts with U+FEFF. The reader skips it; a rewrite drops it.";
    TRAILING_WHITESPACE = "ACE011" "trailing-whitespace" Diagnostic Warning "ACE playbook format spec"
        summary: "Line ends with white space."
        doc: "The ACE playbook format spec forbids trailing white space on entry lines. It is invisible, makes diffs noisy and changes the normalised hash of some tools. Reported on entry, continuation and heading lines; remove it.";
    SECTION_SPACING = "ACE012" "section-spacing" Diagnostic Warning "ACE playbook format spec"
        summary: "Sections are not separated by exactly one blank line."
        doc: "The ACE playbook format spec asks for a single blank line between sections. Reported for a heading with no blank line or several blank lines before it, for runs of blank lines, and for blank lines at the start or end of the file. The canonical writer produces heading, entries, one blank line, next heading.";
    MISSING_FINAL_NEWLINE = "ACE013" "missing-final-newline" Diagnostic Warning "ACE playbook format spec"
        summary: "The file does not end with a newline."
        doc: "A file whose last line has no LF is not a well-formed text file for POSIX tools, and appending to it joins two lines. Many generated playbooks end this way. A rewrite adds the newline.";
    MISSING_SEPARATOR = "ACE014" "missing-separator" Diagnostic Warning "ACE playbook format spec"
        summary: "Entry has counters but no `::` before its content."
        doc: "The ACE playbook format spec separates counters from content with ` :: `. Without it, parsers such as the paper's regular expression do not recognise the line as an entry at all. The reader takes the content to start after the last counter.";
    MULTI_LINE_ENTRY = "ACE015" "multi-line-entry" Diagnostic Warning "ace-tools"
        summary: "Entry content continues on the following lines."
        doc: "The markdown playbook is line-oriented: the paper's parser and most tools read only the first line of an entry and silently drop the rest. ace-tools keeps every continuation line up to the next blank line, heading or entry as part of the content. Put the content on one line, or move code into a format that holds multi-line text.";
    HEADING_IN_ENTRY = "ACE016" "heading-like-continuation" Diagnostic Warning "ace-tools"
        summary: "A continuation line starts with `# ` and reads as a heading elsewhere."
        doc: "Inside a multi-line entry, a line such as `# Create CSV content` is a code comment, but a markdown renderer or a line-oriented parser takes it as a level-1 heading and splits the playbook there. ace-tools keeps it as content; other tools will not.";
    ENTRY_BEFORE_SECTION = "ACE017" "entry-before-section" Diagnostic Warning "ACE playbook format spec"
        summary: "Entry appears before the first section heading."
        doc: "The ACE playbook format spec places every entry under a `## SECTION` heading, and the section gives the entry its meaning and prefix. The entry is read with no section; converters that need one will report it.";
    HEADING_STYLE = "ACE018" "heading-style" Diagnostic Info "ACE playbook format spec"
        summary: "Section heading is not an upper-case `## NAME`."
        doc: "The ACE playbook format spec writes section headings as `## SECTION NAME` in capitals. Headings with a trailing colon, in mixed case or at another level are read as sections all the same; the title is kept as written and the section key is derived from it.";
    LIST_MARKER = "ACE019" "list-marker-entry" Diagnostic Info "ace-tools"
        summary: "Entry is written as a list item (`- [id] ...`)."
        doc: "Some playbooks embedded in other markdown documents write entries as list items. They are read as entries; the canonical layout writes them without the list marker.";
    EMPTY_SECTION = "ACE020" "empty-section" Diagnostic Info "ace-tools"
        summary: "Section has no entries."
        doc: "Generated playbooks often keep every heading even when a section is empty. This is harmless and reported only for information.";
    EMPTY_CONTENT = "ACE021" "empty-content" Diagnostic Warning "ACE playbook format spec"
        summary: "Entry has no content."
        doc: "An entry with an ID and counters but no text gives the agent nothing to apply. Write the content or remove the entry.";
    DUPLICATE_SECTION = "ACE022" "duplicate-section" Diagnostic Warning "ace-tools"
        summary: "Two section headings have the same key."
        doc: "Two headings normalise to the same section key (`STRATEGIES & INSIGHTS` and `Strategies and Insights`). They are kept as separate sections, the second with a numbered key, so that no entry moves; merge them by hand.";
    STRAY_TEXT = "ACE023" "stray-text" Diagnostic Info "ace-tools"
        summary: "Text that is neither a heading nor an entry."
        doc: "Prose, tables, lists or code blocks outside entries are not part of the ACE playbook format spec's format. They are kept as the description of the playbook or of the section they appear in, and a rewrite places them right after the title or the section heading.";
    UNCLOSED_BLOCK = "ACE024" "unclosed-block" Diagnostic Warning "ace-tools"
        summary: "A code fence or HTML comment is never closed."
        doc: "An opening ``` fence or `<!--` without its closing line would swallow the rest of the file in a markdown renderer. ace-tools reads the opening line as plain text instead, so that the entries after it are not lost.";
    ENTRY_IN_BLOCK = "ACE025" "entry-in-block" Diagnostic Info "ace-tools"
        summary: "An entry-like line inside a code fence or HTML comment is not an entry."
        doc: "Specs and documents quote example entries inside code fences, and curators comment entries out with `<!-- ... -->`. Such lines are read as text, not as entries. Remove the fence or comment if the entry is meant to be live.";
    BULLET_SYNTAX = "ACE026" "bullet-syntax" Diagnostic Error "ace_beads curator spec"
        summary: "A line that starts like an AGENTS.md bullet does not parse."
        doc: "The ace_beads curator spec writes a bullet as `[Bullet #id, helpful:N, harmful:M] Content`. A line that begins with `[Bullet` but has no `#id`, no closing `]`, or a counter that is not a whole number is not a bullet: the curator's parser skips it, so the advice is invisible to it. ace-tools keeps the line as text, byte for byte, and names the part that does not parse.";
    BULLET_STYLE = "ACE027" "bullet-style" Diagnostic Info "ace_beads curator spec"
        summary: "A bullet parses but is not written in the spec's exact form."
        doc: "List dashes (`- [Bullet ...]`), missing counters, fields in another order or other spacing are read without loss, and a no-op rewrite keeps the line as it was. The curator's own regular expression (`^\\s*\\[Bullet #([a-zA-Z0-9-]+), helpful:(\\d+), harmful:(\\d+)(?:, Aggregated from (\\d+) instances)?\\] (.+)$`) would miss some of these lines; a changed bullet is written in the spec's form.";
    PROVENANCE_HASH = "ACE028" "provenance-hash-mismatch" Diagnostic Warning "ace_beads curator spec"
        summary: "A provenance comment's `hash` does not match its bullet."
        doc: "The ace_beads curator spec records `hash=section::normalized` under each bullet, where `normalized` is the content trimmed, lower-cased and with whitespace collapsed. When the bullet was edited by hand or moved to another section the hash goes stale and the curator's duplicate check stops recognising it. The message shows the expected value; update the comment or drop its `hash`.";
    DEPRECATION_DUE = "ACE029" "deprecation-due" Diagnostic Warning "ace_beads curator spec"
        summary: "`harmful` is greater than `helpful`: the ace_beads curator spec deprecates the bullet."
        doc: "The curator's merge rules say to deprecate a bullet when `harmful > helpful`. The bullet is still live in the file. Rewrite it, or remove or archive it (ace_beads moves such bullets to `AGENTS.archive.md`). Entries whose status is already `deprecated` or `archived` are not reported.";
    SECTION_NOT_IN_YAML = "ACE030" "section-missing-from-playbook-yaml" Diagnostic Warning "ace_beads curator spec"
        summary: "An AGENTS.md section has no entry in playbook.yaml."
        doc: "The curator keeps section weights in `knowledge/playbook.yaml`, one `{id, weight}` per section. A section heading in AGENTS.md that the YAML does not list has no weight, and the curator gives it the default 0.5 on its next run. Matching is by section key: a curator id heading (`## node/tooling`) is its own key, a human title is keyed by the shared rule (`Build & Test Patterns` matches the id `build_and_test_patterns`). Add the section to the YAML, or let `ace-convert` write the pair.";
    YAML_SECTION_UNUSED = "ACE031" "playbook-yaml-section-unused" Diagnostic Warning "ace_beads curator spec"
        summary: "A playbook.yaml section has no heading in AGENTS.md."
        doc: "The YAML lists a section that AGENTS.md does not have, so its weight applies to nothing. In the one real pair (ace_beads) every YAML id (`node/tooling`, `build/patterns`) misses every heading (`Build & Test Patterns`): the two files have drifted apart. Rename one side so the ids match.";
    WEIGHT_RANGE = "ACE032" "weight-range" Diagnostic Error "ace_beads curator spec"
        summary: "A section weight is not a number between 0 and 1."
        doc: "Section weights rank sections for retrieval; the ace_beads curator spec gives new sections 0.5 and real weights lie in 0..1. A weight outside that range, or one that is not a number, is kept as written but cannot be compared with the others.";
    YAML_SHAPE = "ACE033" "yaml-shape" Diagnostic Error "ace_beads curator spec"
        summary: "A playbook.yaml value has the wrong type, or a required key is missing."
        doc: "`playbook.yaml` is a mapping with `version` and a list `sections` of mappings that each have a string `id`. A full playbook in YAML may also have `entries` (see docs/formats/playbook-yaml.md). The message names the key and what was expected; values of the wrong type are kept under their key so nothing is lost.";
    DUPLICATE_KEY = "ACE034" "duplicate-key" Diagnostic Error "ace-tools"
        summary: "A JSON object has the same key twice."
        doc: "JSON leaves duplicate keys undefined: Python's `json.load`, which the skill's scripts use, keeps the last value and drops the first without a word. ace-tools reads the file the same way, so that it sees what those scripts see, and reports every earlier occurrence with a pointer to the one that wins. Remove or rename one of the two.";
    PLAYBOOK_SCHEMA = "ACE035" "playbook-schema" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "A skill bullet fails the bullet schema of the generation it follows."
        doc: "The skill publishes `bullet.schema.json` (two incompatible generations; see ACE037). Each bullet is checked against the generation it follows, and every failing value is reported at its own line and column: an ID that is not `bullet-YYYY-MM-DD-NNN`, an `author` or evidence `type` outside the enum, a title longer than 100 characters, an unknown property. The skill's scripts load such bullets all the same, so this is a warning; the file is read and converted without loss.";
    DELTA_SCHEMA = "ACE036" "delta-schema" Diagnostic Error "ace-context-engineering skill spec"
        summary: "A skill delta, reflector output or curator output fails its published schema."
        doc: "The skill's `validate_delta.py` rejects a delta that fails `delta.schema.json`, so the merge never happens. ace-tools checks the delta's own fields against that schema and each new bullet against the bullet schema of the generation it follows (the shipped delta schema refers to generation 2 only, which rejects every generation-1 bullet; ACE037 says so where it happens). Reflector and curator outputs are checked against `reflector_output.schema.json` and `curator_output.schema.json`, and the delta inside them is checked as a delta.";
    SCHEMA_GENERATION = "ACE037" "schema-generation" Diagnostic Info "ace-context-engineering skill spec"
        summary: "Which generation of the skill's bullet schema the bullets follow."
        doc: "Generation 1 of `bullet.schema.json` (commit c1db146) has `confidence` as a level (`high`, `medium`, `low`) and `scope` as a name (`global`, `project`, ...). Generation 2, shipped beside the skill today, has `confidence` as a number in 0..1 and `scope` as an object `{domain, inputs, outputs}`. Both carry the same `$id`, and the skill's own playbooks follow generation 1, so they fail the schema shipped with them. The generation is decided from the `confidence` and `scope` values; a file with neither is checked against generation 2.";
    MIXED_GENERATION = "ACE038" "mixed-generation" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "Bullets of one file follow different schema generations."
        doc: "One bullet writes `confidence` as a level and another as a number, or one bullet mixes the two generations in its own `confidence` and `scope`. No published schema accepts the whole file. Each bullet is checked against the generation its `confidence` suggests; convert with `--skill-generation` to make the file uniform.";
    TIMESTAMP_FORMAT = "ACE039" "timestamp-format" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "A timestamp is not an RFC 3339 date-time with a timezone."
        doc: "The skill's schemas declare `created`, `last_updated` and `timestamp` as `date-time`, which requires a timezone (`Z` or `+02:00`). Python's `datetime.now().isoformat()` writes none (`2025-10-27T12:33:11.269633`), so the instant is ambiguous across machines. The value is kept as written; add `Z` if the time is UTC.";
    DELTA_UNKNOWN_ID = "ACE040" "delta-unknown-id" Diagnostic Error "ace-context-engineering skill spec"
        summary: "A delta refers to a bullet the playbook does not have."
        doc: "Checked when the playbook is given with `--playbook FILE`. The skill's merge script skips a counter update, edit, merge or deprecation whose bullet it cannot find, so the change is lost without a message. IDs added by the same delta's `new_bullets` count as existing for edits, merges and deprecations.";
    DELTA_ID_EXISTS = "ACE041" "delta-id-exists" Diagnostic Error "ace-context-engineering skill spec"
        summary: "A new bullet in a delta reuses an ID the playbook or the delta already has."
        doc: "The skill's merge script appends new bullets without checking, so the playbook ends up with two bullets of one ID and every later counter update or edit reaches only the first. Checked against the playbook given with `--playbook FILE` and among the delta's own new bullets. Allocate the next free `bullet-YYYY-MM-DD-NNN`.";
    DELTA_CONFLICT = "ACE042" "delta-conflict" Diagnostic Error "ace-context-engineering skill spec"
        summary: "Two operations of one delta act on the same bullet in ways that contradict."
        doc: "The skill's curate phase must resolve conflicts such as editing and deprecating the same bullet. Reported: an edit together with a deprecation, a bullet both edited or deprecated and merged away, a bullet merged away twice, a bullet deprecated twice, two edits that set the same field, and a merge target that another merge archives. The message names both operations.";
    MERGE_KEEPS_MERGED = "ACE043" "merge-keeps-merged" Diagnostic Error "ace-context-engineering skill spec"
        summary: "A merge lists its `keep_id` among the `merge_ids`."
        doc: "The merge script adds each merged bullet's counters to the kept bullet and then archives it, so a kept bullet that is also merged doubles its own counters and archives itself. Remove the kept ID from `merge_ids`.";
    COUNTER_ON_NEW_BULLET = "ACE044" "counter-on-new-bullet" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "A delta updates the counters of a bullet it adds itself."
        doc: "The skill's merge applies counter updates before it adds new bullets, so an update to a bullet that the same delta creates finds nothing and is dropped. Set `helpful_count` and `harmful_count` on the new bullet instead.";
    METADATA_COUNT = "ACE045" "metadata-count" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "`metadata` bullet counts disagree with the bullets in the file."
        doc: "The skill's merge writes `metadata.total_bullets`, `active_bullets`, `deprecated_bullets` and `archived_bullets` after each delta. A count that disagrees with the bullets means the file was edited by hand or merged by another tool; tools that trust the metadata will misreport the playbook. The message gives the true count.";
    LAYOUT_NOT_KEPT = "ACE046" "layout-not-kept" Diagnostic Info "ace-tools"
        summary: "A rewrite of this file would change its layout, not its data."
        doc: "ace-tools rewrites skill JSON in the layout it finds (Python's `json.dump(indent=2)` or the hand-written style with one-line lists, `\\uXXXX` escapes or raw UTF-8, a final newline or none) and keeps key order. Layouts outside those, such as other indentation, numbers written as `1.50`, or escapes Python would not write, are normalised. The message shows the first line that would change.";
    SKILL_SHAPE = "ACE047" "skill-shape" Diagnostic Error "ace-context-engineering skill spec"
        summary: "A skill playbook or delta value has the wrong type, or a required key is missing."
        doc: "A skill playbook is `{version, schema_version, last_updated, bullets: [...], metadata?}` or a bare array of bullets; each bullet is an object with a string `id` and `content`. A value of the wrong type is kept under its key as an extra field so that nothing is lost, and a bullet without an `id` gets an empty one. The message names the key and what was expected.";
    VAGENDA_SCHEMA = "ACE048" "vagenda-schema" Diagnostic Error "vAgenda ACE extension"
        summary: "A vAgenda or vContext document fails the core schema of its version."
        doc: "The document is checked against the published core schema of the version its `vAgendaInfo` / `vContextInfo` names (0.2, 0.3 or 0.4), bundled in ace-tools. Every failing value is reported at its own line and column, in JSON and TRON alike: a missing required property at the object's opening, a wrong value at the value. TRON writes an absent field as `null` because a class has a fixed arity; such nulls are read as absent before the check, as the spec's JSON twins show, so they are not reported.";
    ACE_SCHEMA = "ACE049" "ace-extension-schema" Diagnostic Error "vAgenda ACE extension"
        summary: "A playbook, playbook entry or PlaybookPatch fails the ACE extension's schema."
        doc: "Nothing in the core schemas wires the ACE extension in: a `playbook` is only \"an object\" there. ace-tools checks `plan.playbook`, `todoList.playbook` and a standalone playbook against `#/$defs/Playbook` of the ACE extension (or of the Playbooks extension for an event log), and a patch file against `#/$defs/PlaybookPatch`, with each error at its line and column.";
    DANGLING_REFERENCE = "ACE050" "dangling-reference" Diagnostic Error "vAgenda ACE extension"
        summary: "`supersedes`, `supersededBy` or `duplicateOf` names an entry the playbook does not have."
        doc: "The ACE extension keeps entries forever and links refinements and duplicates by id (grow, refine, dedup). A link to an id that is not in the playbook cannot be followed: the refined or duplicated entry was removed, renamed or never added. Restore the entry (deprecate it instead of deleting it) or correct the id.";
    LINK_MISMATCH = "ACE051" "link-mismatch" Diagnostic Warning "vAgenda ACE extension"
        summary: "Two entries disagree about a supersedes / supersededBy link."
        doc: "When entry B refines entry A, A's `supersededBy` names B and B's `supersedes` lists A. A link written on one side only, or an entry that supersedes itself or is a duplicate of itself, leaves readers with two different histories. Write both sides.";
    METRICS_MISMATCH = "ACE052" "metrics-mismatch" Diagnostic Warning "vAgenda ACE extension"
        summary: "`metrics.totalEntries` differs from the number of entries."
        doc: "PlaybookMetrics summarise the playbook; a `totalEntries` that disagrees with the entries means the file was edited without updating them, and tools that trust the summary misreport the playbook. The message gives the true count. ace-tools recomputes the metrics whenever it changes the entries.";
    EVENT_LOG = "ACE053" "event-log" Diagnostic Info "vAgenda ACE extension"
        summary: "The playbook is an append-only event log and was read as its current view."
        doc: "The Playbooks extension (the ACE extension renamed, and vContext 0.3/0.4) stores each change as an event (`eventId`, `targetId`, `operation`, `prevEventId`). ace-tools reads the current view of each target: it follows `prevEventId` from the first event to the head, applies field updates, adds counter deltas and marks deprecations. Writing vAgenda again keeps every event and appends new events for what changed.";
    EVENT_LOG_BROKEN = "ACE054" "event-log-broken" Diagnostic Warning "vAgenda ACE extension"
        summary: "An event log has a broken chain: a missing `prevEventId`, a duplicate event id or two heads for one target."
        doc: "Each target's events form a linked list through `prevEventId`. An update whose previous event does not exist, an event id used twice, or two events that both continue the same chain (a merge conflict) make the current view ambiguous. ace-tools follows the head with the later `createdAt`, then the greater `eventId`, as the extension suggests, and reports the others.";
    VAGENDA_DIALECT = "ACE055" "vagenda-dialect" Diagnostic Error "ace-tools"
        summary: "The document is not a vAgenda/vContext document ace-tools can read."
        doc: "Accepted: a root with `vAgendaInfo` or `vContextInfo` at version 0.2, 0.3 or 0.4 and one container (`todoList`, `plan`, or from 0.3 a standalone `playbook`), a standalone PlaybookPatch, or a playbook fragment. vBRIEF 0.5 (`vBRIEFInfo`), the pre-ACE draft with `strategies` and `learnings`, and documents with no container are reported here with what was found.";
    VAGUE_CONTENT = "ACE056" "vague-content" Diagnostic Warning "ACE playbook format spec"
        summary: "The entry is too short or too generic to guide anyone."
        doc: "The ACE playbook format spec lists \"Be careful\", \"Think before acting\" and \"Check your work\" as entries not to add: they are obvious and give a model nothing to act on. Reported when the content has fewer words than the threshold (4 by default; `vague-words` in `ace.toml`) or is one of the stock generic phrases. Say what to do, when, and why.";
    SECRET_IN_CONTENT = "ACE057" "secret-in-content" Diagnostic Error "ACE playbook format spec"
        summary: "The content holds what looks like a credential: an API key, token, password or private key."
        doc: "The ACE playbook format spec's anti-patterns include \"The API key was abc123\": a playbook is shared with every agent run and often committed, so a secret in it is leaked. Reported for well-known key shapes (AWS `AKIA...`, GitHub `ghp_...`, Slack `xox...`, OpenAI/Anthropic `sk-...`, Google `AIza...`, JWTs, PEM private keys) and for a key, token, password or secret word followed by a value. Remove the value and rotate the credential; write the lesson without it. The finding names the entry and its line, and does not print the line, since CI logs are often public. In a delta it is reported at the operation that would write it, and `ace-apply` (so ace-mcp's writes too) refuses that delta as `invalid`: an agent's context holds credentials, and a reflection can carry one into a lesson.";
    ONE_OFF_SPECIFIC = "ACE058" "one-off-specific" Diagnostic Warning "ACE playbook format spec"
        summary: "The content is tied to one occurrence: a UUID, a hash, a home directory, an IP or e-mail address, a timestamp."
        doc: "The ACE playbook format spec asks for entries that generalise (\"Not generalizable\" is an anti-pattern). Values that identify one run, one machine or one person (UUIDs, long hexadecimal hashes, `/home/<user>` paths, IP and e-mail addresses, full timestamps) suggest the entry records an incident rather than a lesson. Replace the value by what it stands for.";
    TAG_TAXONOMY = "ACE059" "tag-taxonomy" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "A tag is not lower-case and dotted (`tool.edit`, `api.github.ratelimit`)."
        doc: "The ace-context-engineering skill spec's tag taxonomy is hierarchical: lower-case segments of letters, digits, `_` or `-`, joined by dots (`git.push`, `error_handling`). Tags in another shape (`Git Push`, `tool/edit`, `a..b`) do not match the tags retrieval asks for. The message gives the normalised form.";
    EVIDENCE_TYPE = "ACE060" "evidence-type" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "An evidence record has a type the ace-context-engineering skill spec does not define."
        doc: "The ace-context-engineering skill spec grades evidence by type: `execution`, `validation` and `test_result` are high confidence, `user_feedback` and `documentation` medium, `low_confidence` low, and the bullet schema adds `error_log`. Another type cannot be graded. Use one of these seven.";
    LIKELY_DUPLICATE = "ACE061" "likely-duplicate" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "Two entries say nearly the same thing under nearly the same tags."
        doc: "The ace-context-engineering skill spec's curator merges bullets whose title and content are similar (over 80%) and whose tags overlap by more than 70%. Similarity here is lexical: the Jaccard index of the word sets of title and content; tag overlap is the Jaccard index of the tag sets. Both thresholds can be set in `ace.toml` (`similarity`, `tag-overlap`). Exact duplicates are ACE008. The search runs over an index of each distinct word set's rarest words, and each entry is reported with the earliest entry it repeats; so that a file of any shape costs time in proportion to its size, a search visits at most 256 word sets sharing a rare word with the entry's, which only a file of a few sentences recombined over and over reaches (there some pairs go unreported). Merge the two, keeping the older id.";
    QUARANTINE = "ACE062" "quarantine-candidate" Diagnostic Info "ace-playbook append-only ADR"
        summary: "`harmful >= helpful` with at least one signal: GuardrailMonitor would quarantine the entry."
        doc: "The ace-playbook append-only ADR's GuardrailMonitor quarantines an entry once its harmful count reaches its helpful count and it has been judged at least once. This is information: the entry stays in the playbook, but an ACE system would stop serving it. Review the entry; `ACE006` reports the stronger pruning rule. An entry that is no longer active is not reported, and neither are kayba's skillbooks and markdown, whose own curation differs.";
    DELTA_LOW_CONFIDENCE = "ACE063" "delta-low-confidence" Diagnostic Error "ace_beads curator spec"
        summary: "An AceDelta's confidence is below the threshold: the curator rejects it (`low-confidence`)."
        doc: "The ace_beads curator rejects a delta whose `metadata.confidence` is below 0.80 (or the configured threshold, `confidence` in `ace.toml`), with the reason code `low-confidence`. Gather more evidence before proposing it, or lower the threshold deliberately.";
    DELTA_LOW_EVIDENCE = "ACE064" "delta-low-evidence" Diagnostic Error "ace_beads curator spec"
        summary: "An AceDelta's evidence is missing or shorter than 8 characters: the curator rejects it (`low-evidence`)."
        doc: "The ace_beads curator rejects a delta whose `metadata.evidence` is missing or shorter than 8 characters (`evidence-length` in `ace.toml`), with the reason code `low-evidence`. Say what showed the lesson: a test, a trace, a commit.";
    DELTA_DUPLICATE = "ACE065" "delta-duplicate" Diagnostic Error "ace_beads curator spec"
        summary: "An AceDelta adds content whose `section::normalised` hash already exists: the curator rejects it (`duplicate`)."
        doc: "The ace_beads curator spec hashes `${section}::${normalize(content)}` (trim, lower-case, collapse white space) and rejects an `add` whose hash is already in the playbook (given with `--playbook`) or earlier in the same batch, with the reason code `duplicate`. An `amend` with an existing hash is how the curator replaces a bullet, so it is not reported.";
    DELTA_INVALID = "ACE066" "delta-invalid" Diagnostic Error "ace_beads curator spec"
        summary: "An AceDelta does not match the delta schema: the curator rejects it (`invalid`)."
        doc: "The ace_beads curator spec rejects malformed deltas with the reason code `invalid`. The schema is ace_beads' zod AceDelta: `id` (UUID), `section` (`^[a-z0-9._/-]+$`), `op` (`add`, `amend` or `deprecate`), `content` (at least 8 characters) and `metadata` with `source.beadsId`, `confidence` (0 to 1), `helpful` and `harmful` (whole numbers, at least 0), `tags`, optional `scope`, `evidence` and `createdAt` (a date-time). Each problem is reported at its value; a curator output's `rejected[].reason` outside the four codes is reported too.";
    WRITE_SCOPE = "ACE067" "write-scope" Diagnostic Error "ace_beads curator spec"
        summary: "A path the curator would write is outside `knowledge/**` and `prompts/**`."
        doc: "The ace_beads curator may only write under `knowledge/` and `prompts/`, and any other write MUST be rejected. Reported for the `playbook` and `agentsMd` targets of a curator input (a `file://` prefix is allowed) and for write paths in a delta, including absolute paths and paths that climb out with `..`.";
    PATCH_APPEND_EXISTING = "ACE068" "patch-append-existing" Diagnostic Error "vAgenda ACE extension"
        summary: "`appendEntry` uses an id the playbook already has."
        doc: "The vAgenda ACE extension: `appendEntry` MUST NOT modify existing entries, and ids are stable once created. An append whose `entry.id` is already in the playbook given with `--playbook` (or appended earlier in the same patch) would overwrite or duplicate an entry. Give the new entry a new id, or use `updateEntry`.";
    PATCH_UNKNOWN_ENTRY = "ACE069" "patch-unknown-entry" Diagnostic Error "vAgenda ACE extension"
        summary: "`updateEntry`, `incrementCounter` or `deprecateEntry` names an id the playbook does not have."
        doc: "With `--playbook FILE`, every `entryId` of an operation other than `appendEntry` must name an entry of that playbook (or one appended earlier in the same patch). Otherwise the operation has nothing to apply to: the patch was made for another playbook, or the entry was renamed.";
    PATCH_SEQUENCE = "ACE070" "patch-sequence-mismatch" Diagnostic Warning "vAgenda ACE extension"
        summary: "`baseDocumentSequence` differs from the document's `sequence`: the patch is concurrent."
        doc: "The vAgenda ACE extension: when a patch carries `baseDocumentSequence`, an implementation MUST compare it with the target document's `sequence` (`plan.sequence` or `todoList.sequence`); if they differ the patch MUST be merged by the conflict rules or rejected. Reported with `--playbook` when the two differ, or when the document has no `sequence` to compare with.";
    PATCH_UPDATE_CONFLICT = "ACE071" "patch-update-conflict" Diagnostic Error "vAgenda ACE extension"
        summary: "Two `updateEntry` operations change the same field of one entry."
        doc: "The vAgenda ACE extension's merge semantics: two `updateEntry` operations on the same `entryId` conflict unless they touch disjoint fields. The later operation is reported, naming the fields both set and pointing at the earlier one. Merge them into one operation.";
    SELF_REPORT_CONFIDENCE = "ACE072" "self-report-confidence" Diagnostic Warning "vAgenda ACE extension"
        summary: "An entry backed only by `selfReport` feedback claims high confidence."
        doc: "The vAgenda ACE extension treats `feedbackType: selfReport` as low-signal feedback and asks tools not to inflate `confidence` without corroboration. Reported when such an entry has `confidence` at or above 0.8 (`self-report-confidence` in `ace.toml`). Lower the confidence or record stronger feedback.";
    HISTORY_ENTRY_REMOVED = "ACE073" "history-entry-removed" Diagnostic Error "vAgenda ACE extension"
        summary: "An entry of the baseline is gone: ids are never removed, entries are deprecated instead."
        doc: "With `--baseline`, the file is compared with its earlier version. The vAgenda ACE extension and the ace-playbook append-only ADR make playbooks append-only: ids are stable, deprecation is soft (`status: deprecated`) and history is not erased. An id present in the baseline and missing now is reported at the start of the file. Put the entry back and deprecate it.";
    HISTORY_CONTENT_CHANGED = "ACE074" "history-content-changed" Diagnostic Error "vAgenda ACE extension"
        summary: "An existing entry's content changed without a `supersedes`/`supersededBy` link."
        doc: "The vAgenda ACE extension and the ace-playbook append-only ADR: an entry is revised by creating a successor linked with `supersedes`/`supersededBy`, not by editing history. Reported with `--baseline` when an entry's content (compared after trimming) differs from the baseline and neither the entry nor a successor records the link. White-space-only changes are not reported.";
    HISTORY_COUNTER_DECREASED = "ACE075" "history-counter-decreased" Diagnostic Error "ace-playbook append-only ADR"
        summary: "A helpful or harmful counter is lower than in the baseline."
        doc: "Counters count events; the ace-playbook append-only ADR's append-only updates and the vAgenda ACE extension's commutative `incrementCounter` only ever add to them. A counter lower than in the baseline means feedback was lost, often by a merge that took the older file. Counters that disappeared are reported too.";
    HISTORY_VERSION_BACKWARDS = "ACE076" "history-version-backwards" Diagnostic Error "vAgenda ACE extension"
        summary: "The playbook version or the document sequence is lower than in the baseline."
        doc: "The vAgenda ACE extension's playbook `version` is monotonic and the document `sequence` guards concurrent patches, so neither may go backwards. Reported with `--baseline` when either is lower than the baseline's (numbers compared as numbers, dotted versions part by part).";
    UNKNOWN_KEY = "ACE077" "unknown-key" Diagnostic Warning "ace-tools"
        summary: "A document has a top-level key its format does not define."
        doc: "A skill playbook is `{version, schema_version, last_updated, bullets, metadata}` and a kayba skillbook `{skills, sections, next_id, similarity_decisions}` (or `bullets` before 0.7). Another key at the top of such a file is most often what some tool left behind, such as a whole document of another format stored under a key. The file is still read as its format, and the key is kept as an extra field: a rewrite keeps it, and a conversion reports it where the target has no place for it.";
    SKILLBOOK_SHAPE = "ACE078" "skillbook-shape" Diagnostic Error "kayba"
        summary: "A kayba skillbook value is not of the type the framework saves."
        doc: "The kayba ace-framework saves `{\"skills\": {ID: skill}, \"sections\": {SECTION: [ID, ...]}, \"next_id\": N, \"similarity_decisions\": {...}}` (`bullets` instead of `skills` before 0.7), each skill an object with a string `content` and `section`, integer counters and string timestamps. A value of another type (a skill that is not an object, counters written as strings, no `content`) is reported at the value; the skill keeps what could be read. A skill whose `id` differs from its key is reported as a warning: the framework looks skills up by key, and a rewrite writes the key for both.";
    SKILLBOOK_INDEX = "ACE079" "skillbook-index" Diagnostic Warning "kayba"
        summary: "A skillbook's `sections` index or `next_id` disagrees with its skills."
        doc: "The framework keeps, beside the skills, an index of each section's skill IDs and a counter for new IDs (`{section}-{next_id:05d}`). An ID listed that has no skill, a skill not listed under its section, or a `next_id` lower than the number of an existing ID (the next ADD would overwrite that skill) is reported. A rewrite keeps the index as the file had it and adds the skills it misses.";
    DELTA_ID_SHAPE = "ACE080" "delta-id-shape" Diagnostic Warning "ace-context-engineering skill spec"
        summary: "A skill delta adds or names a bullet by an ID that is not `bullet-YYYY-MM-DD-NNN`."
        doc: "`delta.schema.json` requires every bullet ID of a delta (a new bullet's, and those `counters`, `edits`, `merges` and `deprecations` name) to be `bullet-YYYY-MM-DD-NNN`, so `validate_delta.py` rejects the delta. The skill's own playbooks hold other IDs (`appworld-login-001`, and `bullet-2025-10-27-012842` from its reflector), which no valid delta can name, while the merge script finds a bullet by whatever ID it has. ace-tools reports the ID and applies the delta; an ID the playbook does not have is ACE040, an error.";
    GLUED_ENTRY = "ACE081" "glued-entry" Diagnostic Warning "ace-tools"
        summary: "An entry's text holds another entry's head: two entries on one line."
        doc: "`[sai-00001] helpful=2 harmful=0 :: Check the logs.[sai-00099] helpful=1 harmful=0 :: Read the runbook.` is what `echo ... >> playbook.md` gives when the file's last line has no newline: the second entry is read as part of the first one's content, its ID and counters lost to every tool. The finding points at the second head; put it on a line of its own.";
    REFLECTOR_INSIGHTS = "ACE082" "reflector-insights" Diagnostic Info "ace_beads curator spec"
        summary: "A reflector's insights: how many carry a delta, and what the curator would refuse."
        doc: "The ace_beads reflector writes insights (`pattern`, `evidence`, `recommendation`, `confidence`, and a `delta` or `null`) as `{insights: [...]}`, a bare array (`.tmp/reflector-output.json`) or JSON Lines (`logs/insights.jsonl`). An insight is no playbook and no AceDelta: ace-validate says what the file holds, and for each insight whose delta the curator would refuse (confidence or evidence below the thresholds, an operation it cannot apply) why, at the insight. These are notes on a log, never errors; `ace-apply` applies the deltas that pass.";
    SKILLBOOK_V2 = "ACE083" "skillbook-v2" Diagnostic Warning "kayba"
        summary: "A v2 skill that kayba 0.13 changes on load, or refuses to update."
        doc: "kayba 0.12 and later (`schema_version` \"2\") normalise a skill as they load it: a section other than `context` or `harness` becomes `context` with its old name put first in the keywords; keywords are lower-cased, white space becomes `_`, repeats go; empty keywords are filled with the section; text is stripped; an `embedding` in the JSON is dropped (embeddings live in `<stem>.embeddings.npz`), as is a key a v2 skill does not have. Each is reported where it is: kayba loads the file, but its next save writes something else. A `context` skill without an `insight` loads, but kayba's `update_skill` refuses it (`context skills require a non-empty insight`). An empty `issue` is ACE078: kayba refuses the whole file.";
    KAYBA_BATCH = "ACE084" "kayba-batch" Diagnostic Error "kayba"
        summary: "A kayba update batch operation that kayba's `apply_update` raises on."
        doc: "kayba's SkillManager writes `{\"reasoning\", \"operations\": [{\"type\": \"ADD\"|\"UPDATE\"|\"TAG\"|\"REMOVE\", ...}]}`. The release that reads it raises, and saves nothing, on an operation type it does not know, an operation without `type`, `metadata` values that are not integers, an ADD without a section, and in 0.12 and later an ADD without an `issue`, an ADD to `context` without an `insight`, or empty `keywords` given to an UPDATE. ace-tools reports each at the operation and refuses the whole batch, as kayba applies none of it. An operation on an ID the skillbook lacks is no error: kayba passes over it, and so does `ace-apply`.";
    OVER_TOKEN_BUDGET = "ACE085" "over-token-budget" Diagnostic Error "ace-tools"
        summary: "The playbook, or one of its sections, holds more tokens than its budget allows."
        doc: "`[budget] max-tokens` in `ace.toml` (or `--max-tokens`) caps the tokens of the playbook, counted exactly in the budget's encoding (`cl100k_base` unless `tokenizer` says otherwise): the file's text as written, less the text of entries whose status is other than active (deprecated, archived, quarantined, kayba's `active: false`), which agents' loaders leave out. `[budget.sections.NAME] max-tokens` caps one section's active entries (their titles and contents). The finding says by how much the playbook is over and which sections hold the most; `ace-apply PLAYBOOK --prune` removes the lowest-scoring entries until it fits (docs/budget.md).";
    OVER_ENTRY_BUDGET = "ACE086" "over-entry-budget" Diagnostic Error "ace-tools"
        summary: "The playbook, or one of its sections, holds more active entries than its budget allows."
        doc: "`[budget] max-entries` in `ace.toml` (or `--max-entries`) caps the playbook's active entries (entries whose status is other than active are not counted); `[budget.sections.NAME] max-entries` caps one section's. The finding says by how many the playbook is over and which sections hold the most; `ace-apply PLAYBOOK --prune` removes the lowest-scoring entries until it fits (docs/budget.md).";
    BLOCK_MARKERS = "ACE087" "block-markers" Diagnostic Error "kayba"
        summary: "An agent's context file whose `ACE:START`/`ACE:END` markers do not make one block."
        doc: "kayba's Claude Code integration, and `ace-convert --into`, keep a playbook in CLAUDE.md (AGENTS.md, GEMINI.md, a Cursor `.mdc` rule) between `<!-- ACE:START - Do not edit manually -->` and `<!-- ACE:END -->`, each alone on its line. A start marker without an end marker after it, an end marker without a start, or a second pair leaves no telling which lines are the block and which the user's own: the file is not read, `--into` writes nothing, and the message names every marker's line. Markers inside fenced code or indented by four spaces or a tab (an example in the file) are not markers. A start marker of kayba's with an end marker of Code Engine's (`ACE_SECTION_END`), or the other way round, is reported too.";
    BLOCK_CONTENT = "ACE088" "block-content" Diagnostic Warning "ace-tools"
        summary: "A managed block's text holds no entry in a style ace-tools reads."
        doc: "The block is read in the style it was written in: the paper's prompt form (`[id] helpful=N harmful=M :: text`), AGENTS.md bullets, kayba's `as_prompt()` form, or content-only `- text` bullets. A block with text in none of these (kayba 0.8's TOON rendering of a skillbook, prose edited into the block) reads as no entries, which is reported at the block's start rather than taken for an empty playbook. `ace-convert PLAYBOOK --into FILE` replaces the block's text whatever it holds. Code Engine ACE's block (`<!-- ACE_SECTION_START vX -->` to `<!-- ACE_SECTION_END vX -->`, which its plugin before 5.5 filled with its own instructions) is reported here too, at its start marker; a write gives it kayba's markers.";
    REPEATED_FIELD = "ACE089" "repeated-field" Diagnostic Warning "kayba"
        summary: "A skill in kayba's markdown has one of its marked fields twice."
        doc: "kayba's export writes each of a skill's fields once (`**Justification:**`, `**Evidence:**`, `**Issue:**`, `**Insight:**`, `**Keywords:**`, `**Occurrences:**`; in a skills list, `Justification:` and `Evidence:`). A field given again, by an edit or by two exports pasted together, is read with the first rather than in its place: a second evidence is another piece of evidence, a second justification, issue or insight follows the first after a blank line, a second keywords line adds the keywords the first lacks. Only a second, different `Occurrences:` cannot be kept, since a skill has one count: the finding says which number is kept. kayba's export, written from the file, has each field once again.";
    HIDDEN_TEXT = "ACE090" "hidden-text" Diagnostic Error "ace-tools"
        summary: "An entry's text holds a character that reorders the text shown around it or that no one sees."
        doc: "A bidirectional control (U+202A to U+202E, U+2066 to U+2069) makes an editor, a diff and a review page show the text in another order than the one an agent reads (the Trojan Source attack); a Unicode tag character (U+E0000 to U+E007F) is shown as nothing at all while a model reads it as text, which hides instructions in a playbook; a zero-width space, word joiner, invisible operator, U+FEFF inside the text or U+180E hides where words part. A reviewer cannot see what such a playbook tells the agent, so each is an error at the entry, naming the character and where it is. The joiners (U+200C, U+200D) and the one-character direction marks (U+200E, U+200F, U+061C), which scripts and emoji sequences need, are not reported. `ace-view` shows every such character as `[U+XXXX]`. Remove it, or write what it hid as visible text. In a delta it is reported at the operation that would write it, and `ace-apply` (so ace-mcp's writes too) refuses that delta as `invalid`: an agent fed injected text is how one gets in.";
    STORE_VALUE = "ACE091" "store-value" Diagnostic Error "ace-tools"
        summary: "A row of a playbook database holds a value its column should not."
        doc: "A database that keeps a playbook (ace_claude_mcp's `entries`, ace-playbook's `playbook_bullets`) declares what each column holds, but SQLite stores whatever a client writes: a counter as text, a content of NULL, tags that are not a JSON list of strings. The finding names the table, the row's key and the column, and what was expected. The row is read with that field left out (an unreadable counter as no counter, an unreadable tag list as no tags), so that the rest of the playbook can still be checked; a conversion or apply does not go on while the finding stands, since it would write the row back without the value. Fix the row with the project's own tool or with SQL.";
    RECORD_SHAPE = "ACE092" "record-shape" Diagnostic Error "ace-tools"
        summary: "A record of a JSON playbook or delta lacks a field its project's loader needs, or holds a value of another type."
        doc: "Several ACE projects save a playbook or a delta as a JSON list of records (DannyMac180/ACE's `ace playbook dump`, Code Engine's `ace-cli export` and `delta`, jmanhype/ace-playbook's trainer file). Each project's own loader takes each field as one type: a counter as a whole number, tags as a list of strings, a section from a fixed set. A record that lacks a field the loader requires, or holds a value it would not load, is reported at that value with the project, the field and what was expected. The value is kept as written, so a rewrite gives it back unchanged; a delta with such an operation is refused whole, as the project's own code would fail on it.";
    MERGE_CONFLICT = "ACE093" "merge-conflict" Diagnostic Error "ace-tools"
        summary: "The file holds a merge's conflict markers: two versions of some lines, neither chosen."
        doc: "A merge that could not settle some lines (git's own merge, or `ace-merge` when two runs changed one entry's text in different ways) writes both versions between `<<<<<<<`, `=======` and `>>>>>>>` lines, each at the start of a line, for a person to choose. Until then the file is no playbook: a markdown playbook would read both versions as two entries of one ID, and a JSON file does not parse. Every tool refuses to read it, naming the first block's three lines and how many blocks there are. Choose one version of each block (or write one of your own) and delete the marker lines; `git diff` shows every block. Fenced code is no exception, as it is none for `git diff --check`: a playbook's code snippets are where two runs' edits most often meet. Write an example of markers with its marker lines indented.";
    DROPPED_FIELD = "ACE101" "field-not-representable" Loss Warning "ace-tools"
        summary: "The target format has no place for a field, which is dropped."
        doc: "Reported by a conversion for every field that holds data the target format cannot store (for example an entry title or tags written to the markdown playbook). The report names the field and the entries; `--strict` turns it into a failure and writes nothing.";
    ALTERED_TEXT = "ACE102" "text-altered" Loss Warning "ace-tools"
        summary: "Text had to be changed to keep the target's structure."
        doc: "Content that the target would read back differently, such as a blank line or a line that looks like a heading inside a multi-line markdown entry, is changed so that the file stays well-formed. The report says which entry and what was changed.";
    ORDER_CHANGED = "ACE103" "order-changed" Loss Warning "ace-tools"
        summary: "Entries are regrouped by section and their order changes."
        doc: "Formats that group entries under section headings cannot keep an order in which sections interleave. Entries are written section by section, keeping their order within each section. A format whose spec fixes an order (the ace_beads curator spec sorts by section, then helpful descending, then content) reports the reordering here too.";
    VALUE_DEFAULTED = "ACE104" "value-defaulted" Loss Warning "ace-tools"
        summary: "An absent value had to be written as a default."
        doc: "Some formats require a value the model does not have: an AGENTS.md bullet must carry `helpful:N, harmful:M`, so absent counters are written as 0, and a playbook.yaml section must have a weight, so a section without one gets the ace_beads curator spec's default 0.5. Reading the output back gives the default, not \"absent\".";
    VALUE_CONVERTED = "ACE105" "value-converted" Loss Warning "ace-tools"
        summary: "A value was converted to the form the target requires."
        doc: "Writing a skill playbook with `--skill-generation 1` turns a numeric `confidence` into a level and a structured `scope` into a name; generation 2 does the reverse. Levels map to numbers by a fixed rule (high 0.9, medium 0.6, low 0.3) and numbers to levels by bands (0.75 and above high, 0.45 and above medium, below that low), so a score such as 0.8 comes back as 0.9. Every change of form is reported, an exact one (a level as its number) too, so that the report says wherever the file holds another form than the source; a status outside the target's set (a skill's `under_review`, a skillbook's `invalid`) is reported here as well.";
    ID_REASSIGNED = "ACE106" "id-reassigned" Loss Warning "ACE playbook format spec"
        summary: "An entry ID the target cannot hold was replaced by a new one."
        doc: "The markdown playbook reads `[id]` as an entry only when the ID has a digit (the ACE playbook format spec's IDs are `str-00001`), so an entry with an ID such as `a` or `t-migrate` would read back as text. It gets a new ID by the ACE playbook format spec's rule: the section's prefix, then the highest number among that prefix's IDs plus one, five digits wide. References to it (`supersedes`, `supersededBy`, `duplicateOf`, `links`) are rewritten to the new ID. `ace-convert --id-map FILE` writes every old-to-new pair as JSON; the target has no place for the old ID itself.";
    VALUE_DERIVED = "ACE107" "value-derived" Loss Info "ace-tools"
        summary: "A value the target requires was derived from what the entry holds."
        doc: "Some targets require a value the source format does not have, and it can be worked out from the entry: a skill bullet's `title` is the content's first sentence, cut at a word boundary to at most 60 characters; a skill bullet's `tags` are the entry's section when it has no tags; a timestamp written without a zone (Python's `datetime.now().isoformat()`) is read as UTC and written with `Z`, because vAgenda's and the skill's schemas require a zone. Nothing is lost, so `--strict` does not fail on it; reading the output back gives the derived value.";
}

/// Whether a finding is about the file's conformance to its published
/// schema rather than about reading it: the data was read all the same,
/// so a conversion goes on (ace-validate reports it). Real files often
/// fail their own schema, vAgenda's own vContext files among them.
pub fn is_conformance(code: &str) -> bool {
    [PLAYBOOK_SCHEMA.code, VAGENDA_SCHEMA.code, ACE_SCHEMA.code].contains(&code)
}

pub fn by_code(code: &str) -> Option<&'static Rule> {
    ALL.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}

/// The findings that say a file is no ACE artifact at all (a JSON file a
/// reader claimed by its name or keys that holds something else):
/// ace-validate reports such a file as not its to check, not as a broken
/// playbook.
pub const NOT_AN_ARTIFACT: &[&Rule] = &[&VAGENDA_DIALECT];

/// Whether `code` is one of [`NOT_AN_ARTIFACT`].
pub fn not_an_artifact(code: &str) -> bool {
    NOT_AN_ARTIFACT.iter().any(|r| r.code == code)
}

/// `docs/rules.md`, generated from [`ALL`] so that the two cannot drift.
pub fn markdown_doc() -> String {
    use std::fmt::Write as _;
    let mut out = String::from(
        "# Rules\n\n<!-- Generated by `cargo xtask docs` from crates/core/ace-model/src/rules.rs; do not edit. -->\n\n\
         Every finding of `ace-validate` and every loss reported by `ace-convert` has a stable code.\n\
         Codes `ACE0xx` are diagnostics about an input; codes `ACE1xx` are losses in a conversion.\n\
         A code is never reused for another meaning. Select or ignore codes with `--select` and `--ignore`.\n\n\
         | code | name | severity | source | summary |\n|---|---|---|---|---|\n",
    );
    for r in ALL {
        let _ = writeln!(
            out,
            "| [{0}](#{1}) | `{2}` | {3} | {4} | {5} |",
            r.code,
            r.code.to_lowercase(),
            r.name,
            r.severity,
            r.source,
            r.summary.replace('|', "\\|")
        );
    }
    for r in ALL {
        let kind = match r.kind {
            RuleKind::Diagnostic => "diagnostic",
            RuleKind::Loss => "loss",
        };
        let _ = write!(
            out,
            "\n## {}\n\n`{}` · {kind} · default severity **{}** · from {}\n\n{}\n\n{}\n",
            r.code, r.name, r.severity, r.source, r.summary, r.doc
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for pair in ALL.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} before {}",
                pair[0].code,
                pair[1].code
            );
        }
        for r in ALL {
            assert!(r.code.len() == 6 && r.code.starts_with("ACE"), "{}", r.code);
            assert!(r.code[3..].bytes().all(|b| b.is_ascii_digit()));
            assert!(!r.doc.is_empty() && !r.summary.is_empty());
            assert_eq!(r.kind == RuleKind::Loss, r.code.as_bytes()[3] == b'1');
        }
        let mut names: Vec<_> = ALL.iter().map(|r| r.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
    }

    #[test]
    fn lookup_is_case_insensitive() {
        assert_eq!(by_code("ace002").unwrap().name, "duplicate-id");
        assert!(by_code("ACE999").is_none());
    }
}
