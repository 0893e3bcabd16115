//! The curator's variant as the registry lists it: AGENTS.md, read and
//! written with the playbook.yaml beside it when there is one. Only this
//! crate knows both formats, so the pair is put together here.

use ace_exec::Out;
use ace_format::{
    Companion, Confidence, Curation, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, WriteCtx,
    WriteOption,
};
use ace_model::WriteReport;
use ace_model::{Diagnostic, LossEntry, Playbook, ReadOutput};

/// `agents-md`: ace-agents' format, with [`CuratorYaml`] as its companion.
pub struct AgentsMd;

pub static AGENTS_MD: AgentsMd = AgentsMd;

/// The curator's knowledge/playbook.yaml beside an AGENTS.md: the version,
/// the sections' weights and unknown keys.
pub struct CuratorYaml;

pub static CURATOR_YAML: CuratorYaml = CuratorYaml;

impl PlaybookFormat for AgentsMd {
    fn name(&self) -> &'static str {
        ace_agents::FORMAT.name()
    }

    fn describe(&self) -> &'static str {
        ace_agents::FORMAT.describe()
    }

    fn extensions(&self) -> &'static [&'static str] {
        ace_agents::FORMAT.extensions()
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        ace_agents::FORMAT.sniff(input)
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        ace_agents::FORMAT.read(text, ctx)
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        ace_agents::FORMAT.write(pb, ctx, out)
    }

    fn lint_profile(&self) -> LintProfile {
        ace_agents::FORMAT.lint_profile()
    }

    fn write_options(&self) -> &'static [WriteOption] {
        ace_agents::FORMAT.write_options()
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(ace_agents::LAYOUT_KEY)
    }

    fn curation(&self, pb: &Playbook) -> Curation {
        ace_agents::FORMAT.curation(pb)
    }

    fn companion(&self) -> Option<&'static dyn Companion> {
        Some(&CURATOR_YAML)
    }
}

impl Companion for CuratorYaml {
    fn name(&self) -> &'static str {
        "playbook-yaml"
    }

    fn main_file(&self) -> &'static str {
        "AGENTS.md"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["playbook.yaml", "playbook.yml"]
    }

    fn attach(&self, read: &mut ReadOutput, text: &str) -> Result<Vec<Diagnostic>, Diagnostic> {
        attach_sections(read, text)
    }

    /// A loss that AGENTS.md reports for something playbook.yaml keeps (the
    /// version, section weights, extra fields) is not a loss of the pair.
    fn write(&self, pb: &Playbook, _: &WriteCtx, out: &mut Out<'_>) -> (String, WriteReport) {
        write_pair(pb, out)
    }
}

/// Reads the curator's playbook.yaml into a playbook read from AGENTS.md:
/// weights reach the sections whose key is the YAML `id`, YAML sections with
/// no heading are added, and `version` and unknown keys are kept. Findings
/// about AGENTS.md go into `parsed.diagnostics`; the ones about the YAML file
/// are returned. A YAML file that does not parse is the error.
fn attach_sections(
    parsed: &mut ReadOutput,
    yaml_text: &str,
) -> Result<Vec<Diagnostic>, Diagnostic> {
    use ace_model::rules;
    let yaml = ace_yaml::read(yaml_text)?;
    let mut yaml_diags = yaml.diagnostics;
    let y = yaml.playbook;
    let pb = &mut parsed.playbook;
    let listed: std::collections::HashSet<&str> =
        y.sections.iter().map(|s| s.key.as_str()).collect();
    for s in &pb.sections {
        if !listed.contains(s.key.as_str()) {
            parsed.diagnostics.push(
                Diagnostic::new(
                    &rules::SECTION_NOT_IN_YAML,
                    s.origin.0.unwrap_or_default(),
                    format!(
                        "section `{}` is not listed in playbook.yaml",
                        s.display_title()
                    ),
                )
                .with_help(format!(
                    "add `- id: {:?}` with a weight to playbook.yaml",
                    s.key
                )),
            );
        }
    }
    for ys in y.sections {
        match pb.sections.iter_mut().find(|s| s.key == ys.key) {
            Some(s) => {
                s.weight = ys.weight;
                s.extra.extend(ys.extra);
                if s.description.is_none() {
                    s.description = ys.description;
                }
                if s.prefix.is_none() {
                    s.prefix = ys.prefix;
                }
            }
            None => {
                yaml_diags.push(Diagnostic::new(
                    &rules::YAML_SECTION_UNUSED,
                    ys.origin.0.unwrap_or_default(),
                    format!("section `{}` has no heading in AGENTS.md", ys.key),
                ));
                pb.sections.push(ace_model::Section {
                    origin: ace_model::Origin(None),
                    ..ys
                });
            }
        }
    }
    if y.version.is_some() {
        pb.version = y.version;
    }
    pb.extra.extend(y.extra);
    yaml_diags.sort_by_key(|d| (d.span.start, d.code));
    Ok(yaml_diags)
}

/// AGENTS.md printed into `agents_md`, which may send the text on as it
/// is printed; returns playbook.yaml (a few lines) and the pair's report.
/// The section a new AGENTS.md files bullets without one under: the
/// curator's bullets stand under a heading, and its playbook.yaml lists it.
const NO_SECTION: (&str, &str) = ("general", "General");

fn write_pair(pb: &Playbook, agents_md: &mut Out<'_>) -> (String, WriteReport) {
    let fresh = pb.layout_of(ace_agents::LAYOUT_KEY).is_none();
    let mut derived = Vec::new();
    let filed;
    let pb = if fresh && pb.entries.iter().any(|e| e.section.is_none()) {
        let mut copy = pb.clone();
        let (key, title) = NO_SECTION;
        if !copy.sections.iter().any(|s| s.key == key) {
            let mut s = ace_model::Section::new(key);
            s.title = Some(title.to_owned());
            copy.sections.insert(0, s);
        }
        for e in copy.entries.iter_mut().filter(|e| e.section.is_none()) {
            e.section = Some(key.to_owned());
            derived.push(LossEntry::new(
                &ace_model::rules::VALUE_DERIVED,
                Some(&e.id),
                "section",
                format!(
                    "an AGENTS.md bullet stands under a section heading; filed under `## {title}`"
                ),
            ));
        }
        filed = copy;
        &filed
    } else {
        pb
    };
    let listed: std::collections::HashSet<&str> = ace_yaml::listed_sections(pb)
        .into_iter()
        .map(|s| s.key.as_str())
        .collect();
    let mut agents = ace_agents::write_beside(pb, agents_md, Some(&listed));
    agents.losses.splice(0..0, derived);
    // The curator's file holds the version, the sections and the extra
    // fields only: a copy of those, not of a playbook of a million entries.
    let mut for_yaml = Playbook {
        version: pb.version.clone(),
        sections: pb.sections.clone(),
        extra: pb.extra.clone(),
        ..Playbook::default()
    };
    for s in &mut for_yaml.sections {
        s.extra.shift_remove(ace_model::keys::HEADING_LEVEL);
    }
    let yaml = ace_yaml::write_sections(&for_yaml);
    let listed: std::collections::HashSet<String> = ace_yaml::listed_sections(&for_yaml)
        .iter()
        .map(|s| format!("sections[{}]", s.key))
        .collect();
    let kept_by_yaml = |l: &LossEntry| {
        let in_listed = |rest: &str| {
            listed.iter().any(|p| {
                l.field
                    .strip_prefix(p.as_str())
                    .is_some_and(|r| r.is_empty() || r.starts_with(rest))
            })
        };
        // The heading level is AGENTS.md's alone: playbook.yaml is not
        // given it.
        let heading_level = l
            .field
            .ends_with(&format!(".extra.{}", ace_model::keys::HEADING_LEVEL));
        l.entry_id.is_none()
            && (l.field == "version"
                || l.field.starts_with("extra.")
                || in_listed(".weight")
                || (in_listed(".extra.") && !heading_level))
    };
    let mut losses: Vec<LossEntry> = agents
        .losses
        .into_iter()
        .filter(|l| !kept_by_yaml(l))
        .collect();
    losses.extend(yaml.losses);
    (
        yaml.text,
        WriteReport {
            losses,
            id_changes: agents.id_changes,
        },
    )
}
