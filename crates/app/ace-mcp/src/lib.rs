//! `ace-mcp`: one playbook location served to agents over MCP (stdio),
//! with the tools of ace_claude_mcp's server (the project behind the ACE
//! playbook format spec) and ace-tools' own. The tools run synchronously
//! ([`served`]), on Tokio's blocking pool; the runtime, which the MCP SDK
//! (`rmcp`) needs, stays inside this crate.

pub mod served;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
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
    /// The insight, formula or knowledge to add.
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
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
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
