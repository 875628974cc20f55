//! The agent loop's state: a conversation's records and what was prepared
//! for them ([`Conversation`]).

use std::sync::Arc;

use crate::carrier::RenderError;
use crate::history::{AssistantTurn, Record, ToolResult, UserMessage};
use crate::import::{read_response, response_form, ResponseError};
use crate::provider::{build_request, BuildError, Options, Provider, Request};
use crate::steps::memo::Memo;

/// An agent's conversation held across turns: its records, and what was
/// prepared for them, so each turn's request costs what changed.
///
/// [`build_request`](crate::provider::build_request) is a pure function of a history: called every turn,
/// it resolves every attachment again. With a
/// [`PreparedCache`](crate::media::PreparedCache) it does not decode or
/// resize them again, but it still reads and hashes every file (a long
/// session's screenshots are hundreds of MB) and encodes every payload to
/// base64 again. A [`Conversation`] keeps, for each attachment, what it
/// was prepared into and that payload's JSON text, found again by the
/// resolver's [`Stamp`](crate::media::Stamp) of its target (for a local
/// file: path, inode, length and times — one `stat`). A turn then costs
/// walking the records, a `stat` per attachment, writing the body (the
/// kept texts copied) and the self-check on it. A file that changes gets
/// a new stamp and is resolved, checked and prepared again, so the body is
/// what [`build_request`](crate::provider::build_request) gives for the same records.
///
/// ```
/// use tool_carrier::Conversation;
/// use tool_carrier::history::{AssistantTurn, ToolResult};
/// use tool_carrier::media::{store::DirStore, Policy};
/// use tool_carrier::provider::{Options, Provider};
/// use tool_carrier::roots::Roots;
/// # let media = std::env::temp_dir().join(format!("tool-carrier-conv-{}", std::process::id()));
/// # std::fs::create_dir_all(&media)?;
/// # let png: &[u8] = &[137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192, 240, 31, 0, 5, 0, 1, 255, 137, 153, 61, 29, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130];
///
/// let policy = Policy::default().with_roots(Roots::new([&media])?);
/// let mut conversation = Conversation::new(Provider::Anthropic, Options::new().with_policy(policy));
/// conversation.push_user("What is on screen?");
/// // The model's answer, as Anthropic sent it:
/// let response = r#"{"type":"message","content":[{"type":"tool_use","id":"toolu_1","name":"screenshot","input":{}}],"stop_reason":"tool_use"}"#;
/// let turn = conversation.push_response(response)?;
/// let mut store = DirStore::new(&media)?;
/// for call in turn.calls() {
///     let result = ToolResult::new(&call.id, "Captured.").attach_bytes(png, &mut store)?;
///     conversation.push_result(&result)?;
/// }
/// let request = conversation.request()?; // checked against the API's rules
/// assert_eq!(request.report.images, 1);
/// # std::fs::remove_dir_all(&media)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Conversation {
    provider: Provider,
    options: Options,
    records: Vec<Record>,
    memo: Arc<Memo>,
}

impl Conversation {
    /// An empty conversation whose requests go to `provider` with
    /// `options` (their [`PreparedCache`](crate::media::PreparedCache), if
    /// any, still serves what this conversation has not prepared yet: a
    /// cache on disk makes a restarted agent's first turn warm).
    pub fn new(provider: Provider, options: Options) -> Conversation {
        let memo = Arc::new(Memo::default());
        let mut options = options;
        options.memo = Some(Arc::clone(&memo));
        Conversation {
            provider,
            options,
            records: Vec::new(),
            memo,
        }
    }

    /// The conversation with `records` ([`Record`]s, or `(role, content)`
    /// pairs) appended.
    pub fn with_records(
        mut self,
        records: impl IntoIterator<Item = impl Into<Record>>,
    ) -> Conversation {
        self.records.extend(records.into_iter().map(Into::into));
        self
    }

    /// Append a record as it is: a role and its content.
    pub fn push(&mut self, role: impl Into<String>, content: impl Into<String>) {
        self.records.push(Record::new(role, content));
    }

    /// Append a record, its members (a user's attachments) kept.
    pub fn push_record(&mut self, record: Record) {
        self.records.push(record);
    }

    /// Append a user's message with what they attached to it.
    ///
    /// # Errors
    /// As [`UserMessage::to_record`]: nothing is appended.
    pub fn push_user_message(&mut self, message: &UserMessage) -> Result<(), RenderError> {
        self.records.push(message.to_record()?);
        Ok(())
    }

    /// Append a user message.
    pub fn push_user(&mut self, text: impl Into<String>) {
        self.push("user", text);
    }

    /// Append an assistant turn (its text, calls and members): one built,
    /// or read from a stream ([`response_stream`](crate::import::response_stream)).
    pub fn push_assistant(&mut self, turn: &AssistantTurn) {
        self.push("assistant", turn.to_json());
    }

    /// Append a tool's result, paired with its call by id.
    ///
    /// # Errors
    /// As [`ToolResult::to_json`]: nothing is appended.
    pub fn push_result(&mut self, result: &ToolResult) -> Result<(), RenderError> {
        let json = result.to_json()?;
        self.push("tool", json);
        Ok(())
    }

    /// Read the provider's answer (a response body, or a whole event
    /// stream: told apart by its shape, as
    /// [`response_form`] does), append it as an assistant turn and return
    /// it (to run its calls).
    ///
    /// # Errors
    /// [`ResponseError`]: an error response, a truncated stream, or text
    /// that is no response of this conversation's provider (nothing is
    /// appended).
    pub fn push_response(&mut self, text: &str) -> Result<AssistantTurn, ResponseError> {
        let form = response_form(self.provider, text).ok_or_else(|| ResponseError::Shape {
            at: "the response".into(),
            reason: format!(
                "neither a response body nor a stream of {}",
                self.provider.display_name()
            ),
        })?;
        let turn = read_response(self.provider, form, text)?;
        self.push_assistant(&turn);
        Ok(turn)
    }

    /// The records, in order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Keep the first `len` records (undo a turn to try again).
    pub fn truncate(&mut self, len: usize) {
        self.records.truncate(len);
    }

    /// The provider requests go to.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The options requests are built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Media the agent uploaded since: the next request sends what
    /// `uploads` names by reference ([`Options::with_uploads`]). The
    /// conversation knows each file's hash by its stamp, so a file read
    /// once is not read again to look it up.
    ///
    /// ```
    /// use tool_carrier::Conversation;
    /// use tool_carrier::media::{ProviderFile, Uploads};
    /// use tool_carrier::provider::{Options, Provider};
    ///
    /// let mut c = Conversation::new(Provider::Anthropic, Options::new());
    /// let file = ProviderFile::parse("anthropic-file:file_1").unwrap().unwrap();
    /// c.set_uploads(Uploads::new().with(b"the bytes", file).unwrap());
    /// ```
    pub fn set_uploads(&mut self, uploads: crate::media::Uploads) {
        self.options.uploads = (!uploads.is_empty()).then(|| Arc::new(uploads));
    }

    /// How many prepared payloads are kept (those the last request
    /// used).
    pub fn kept(&self) -> usize {
        self.memo.len()
    }

    /// The request for the records so far: [`build_request`] for this
    /// conversation's provider, taking from what earlier turns prepared.
    ///
    /// # Errors
    /// As [`build_request`].
    pub fn request(&self) -> Result<Request, BuildError> {
        self.request_for(self.provider)
    }

    /// The request for the records so far, for another provider (what
    /// that provider's limits prepare is kept instead: the memo holds what
    /// the last request used).
    ///
    /// # Errors
    /// As [`build_request`].
    pub fn request_for(&self, provider: Provider) -> Result<Request, BuildError> {
        self.memo.begin();
        let request = build_request(provider, &self.records, &self.options);
        self.memo.sweep();
        request
    }
}
