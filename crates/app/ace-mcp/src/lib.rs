//! `ace-mcp`: one playbook location served to agents over MCP (stdio),
//! with the tools of ace_claude_mcp's server (the project behind the ACE
//! playbook format spec) and ace-tools' own. The tools run synchronously
//! ([`served`]), on Tokio's blocking pool; the runtime, which the MCP SDK
//! (`rmcp`) needs, stays inside this crate.

pub mod served;
pub mod similar;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    ErrorData, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};

pub use served::Served;

/// The server: the location served, and the router of its tools.
#[derive(Clone)]
pub struct Server {
    served: Arc<Served>,
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ReadArgs {
    /// The project to read: global's entries first in each section, then
    /// this project's (default: the location's own, else global).
    pub project_id: Option<String>,
    /// At most this many tokens (cl100k_base): the best entries that fit.
    pub max_tokens: Option<usize>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct SectionArgs {
    /// The section's title, as the playbook writes it
    /// (`STRATEGIES & INSIGHTS`).
    pub section: String,
    pub project_id: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// The section to add to, by its title.
    pub section: String,
    /// The insight, formula or knowledge to add (not blank).
    #[schemars(length(min = 1))]
    pub content: String,
    /// The project the entry belongs to (default: the location's, else
    /// global).
    pub project_id: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct CountersArgs {
    /// The entry's ID (`str-00001`).
    pub entry_id: String,
    /// Added to the helpful counter (may be negative).
    pub helpful_delta: i64,
    /// Added to the harmful counter (may be negative).
    pub harmful_delta: i64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct EntryArgs {
    /// The entry's ID.
    pub entry_id: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// Words, any of which an entry's content holds (case ignored).
    pub query: String,
    pub project_id: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct DeltaArgs {
    /// A delta in any dialect ace-apply reads (an AceDelta, an AcePatch,
    /// a skill delta, the paper's curator operations, a kayba update
    /// batch, playbook events): its JSON text, or the JSON itself.
    pub delta: serde_json::Value,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ReflectionArgs {
    /// What the task was.
    pub task_summary: String,
    /// How it went (ace_claude_mcp's Worker takes success, partial or
    /// failure).
    pub outcome: String,
    /// What was learned, one insight each.
    pub learnings: Vec<String>,
    pub project_id: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct CurateArgs {
    /// The project to curate (default: every project).
    pub project_id: Option<String>,
    /// An entry goes when harmful > helpful + this (default 3; 0 or more).
    #[schemars(range(min = 0))]
    pub harmful_threshold: Option<i64>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ProjectArgs {
    /// The new project's ID (a file name, in a folder of playbooks).
    pub project_id: String,
    pub description: Option<String>,
}

/// The longest text argument a tool takes, in bytes: an entry is advice,
/// not a document, and a 10 MB argument is a mistake or an attack.
pub const MAX_TEXT: usize = 64 * 1024;

/// The longest delta `apply_delta` takes, in bytes.
pub const MAX_DELTA: usize = 4 * 1024 * 1024;

/// Refuses `value` of argument `name` when it is longer than `max`.
fn bounded(name: &str, value: &str, max: usize) -> Result<(), String> {
    match value.len() > max {
        true => Err(format!(
            "`{name}` is {} bytes; ace-mcp takes at most {max}",
            value.len()
        )),
        false => Ok(()),
    }
}

/// Runs `f` on the blocking pool: the tools read and write files and
/// databases synchronously.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(format!("the tool stopped: {e}")))
}

#[tool_router]
impl Server {
    pub fn new(served: Served) -> Server {
        Server {
            served: Arc::new(served),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Return the playbook as markdown: global's entries first in each section, then the project's, each marked [project]. With max_tokens, the best entries that fit."
    )]
    async fn read_playbook(&self, Parameters(a): Parameters<ReadArgs>) -> Result<String, String> {
        let s = self.served.clone();
        blocking(move || s.read_playbook(a.project_id.as_deref(), a.max_tokens)).await
    }

    #[tool(description = "Get one section's entries, its heading first.")]
    async fn get_section(&self, Parameters(a): Parameters<SectionArgs>) -> Result<String, String> {
        bounded("section", &a.section, MAX_TEXT)?;
        let s = self.served.clone();
        blocking(move || s.get_section(&a.section, a.project_id.as_deref())).await
    }

    #[tool(
        description = "Add an entry to a section, its ID the next the playbook gives, its counters 0."
    )]
    async fn add_entry(&self, Parameters(a): Parameters<AddArgs>) -> Result<String, String> {
        bounded("section", &a.section, MAX_TEXT)?;
        bounded("content", &a.content, MAX_TEXT)?;
        let s = self.served.clone();
        blocking(move || s.add_entry(&a.section, &a.content, a.project_id.as_deref())).await
    }

    #[tool(
        description = "Move an entry's helpful and harmful counters by the deltas given; call it after using an entry."
    )]
    async fn update_counters(
        &self,
        Parameters(a): Parameters<CountersArgs>,
    ) -> Result<String, String> {
        bounded("entry_id", &a.entry_id, MAX_TEXT)?;
        let s = self.served.clone();
        blocking(move || s.update_counters(&a.entry_id, a.helpful_delta, a.harmful_delta)).await
    }

    #[tool(
        description = "Remove an entry by its ID (deprecate it where the format keeps a status)."
    )]
    async fn remove_entry(&self, Parameters(a): Parameters<EntryArgs>) -> Result<String, String> {
        bounded("entry_id", &a.entry_id, MAX_TEXT)?;
        let s = self.served.clone();
        blocking(move || s.remove_entry(&a.entry_id)).await
    }

    #[tool(description = "Find the entries whose content holds any of the query's words.")]
    async fn search_playbook(
        &self,
        Parameters(a): Parameters<SearchArgs>,
    ) -> Result<String, String> {
        bounded("query", &a.query, MAX_TEXT)?;
        let s = self.served.clone();
        blocking(move || s.search_playbook(&a.query, a.project_id.as_deref())).await
    }

    #[tool(
        description = "Log a task's reflection (summary, outcome, learnings) for later curation into the playbook."
    )]
    async fn log_reflection(
        &self,
        Parameters(a): Parameters<ReflectionArgs>,
    ) -> Result<String, String> {
        bounded("task_summary", &a.task_summary, MAX_TEXT)?;
        bounded("outcome", &a.outcome, MAX_TEXT)?;
        bounded("learnings", &a.learnings.concat(), MAX_TEXT)?;
        let s = self.served.clone();
        blocking(move || {
            s.log_reflection(
                &a.task_summary,
                &a.outcome,
                &a.learnings,
                a.project_id.as_deref(),
            )
        })
        .await
    }

    #[tool(
        description = "Remove the entries with harmful > helpful + harmful_threshold (deprecate them where the format keeps a status), and list entries more than 80% alike."
    )]
    async fn curate_playbook(
        &self,
        Parameters(a): Parameters<CurateArgs>,
    ) -> Result<String, String> {
        let threshold = a.harmful_threshold.unwrap_or(3);
        // Below 0 the rule holds for an entry never counted harmful: one
        // call would empty the playbook.
        if threshold < 0 {
            return Err(format!(
                "`harmful_threshold` is {threshold}; expected a whole number 0 or more"
            ));
        }
        let s = self.served.clone();
        blocking(move || s.curate_playbook(a.project_id.as_deref(), threshold)).await
    }

    #[tool(description = "List the playbook's projects, with their descriptions.")]
    async fn list_projects(&self) -> Result<String, String> {
        let s = self.served.clone();
        blocking(move || s.list_projects()).await
    }

    #[tool(description = "Create a project for entries of one domain, read beside global's.")]
    async fn create_project(
        &self,
        Parameters(a): Parameters<ProjectArgs>,
    ) -> Result<String, String> {
        bounded("project_id", &a.project_id, MAX_TEXT)?;
        bounded(
            "description",
            a.description.as_deref().unwrap_or(""),
            MAX_TEXT,
        )?;
        let s = self.served.clone();
        blocking(move || s.create_project(&a.project_id, a.description.as_deref())).await
    }

    #[tool(
        description = "Apply a delta of any dialect ace-apply reads, in place, under the playbook's lock; returns ace-apply's report as JSON."
    )]
    async fn apply_delta(&self, Parameters(a): Parameters<DeltaArgs>) -> Result<String, String> {
        let s = self.served.clone();
        let text = match a.delta {
            serde_json::Value::String(t) => t,
            other => other.to_string(),
        };
        bounded("delta", &text, MAX_DELTA)?;
        blocking(move || {
            let placed = s.apply_delta(&text, None)?;
            Ok(placed.report.to_string())
        })
        .await
    }

    #[tool(description = "Check the playbook with ace-validate: its findings as JSON.")]
    async fn validate(&self) -> Result<String, String> {
        let s = self.served.clone();
        blocking(move || s.validate()).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let s = self.served.clone();
        let stored = blocking(move || s.resource())
            .await
            .map_err(|e| ErrorData::internal_error(e, None))?;
        let size = stored.text.len() as u64;
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            stored.uri, "playbook",
        )
        .with_description("The playbook ace-mcp serves, as it is stored")
        .with_mime_type(stored.mime)
        .with_size(size)]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let s = self.served.clone();
        let stored = blocking(move || s.resource())
            .await
            .map_err(|e| ErrorData::internal_error(e, None))?;
        if request.uri != stored.uri {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {:?}; ace-mcp serves {:?}",
                    request.uri, stored.uri
                ),
                None,
            ));
        }
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(stored.text, stored.uri).with_mime_type(stored.mime)
        ])
        .into())
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("ace-mcp", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "An ACE playbook of learned strategies, served by ace-tools: read it before a task, \
             update_counters after using an entry, add_entry for a new insight.",
        )
    }
}

/// Serves `served` over standard input and output until the client
/// closes them.
pub fn serve(served: Served) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start: {e}"))?;
    runtime.block_on(async move {
        let service = Server::new(served)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("cannot start the MCP session: {e}"))?;
        service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("the MCP session ended with an error: {e}"))
    })
}
