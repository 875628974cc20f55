//! The whole agent loop against a mock provider on 127.0.0.1.
//!
//! ```sh
//! cargo run --release --example agent_loop
//! ```
//!
//! The mock speaks Anthropic's Messages API over plain HTTP: it answers
//! each request with the next response recorded in `examples/loop/` (a
//! body, then an event stream, then a body), and refuses a request that
//! breaks one of the API's rules with the API's own error shape. The agent
//! holds a [`Conversation`]: it builds a request, sends it, reads the
//! answer back into the history, runs the tools the model called
//! (screenshots held in memory, stored by their hash) and appends each
//! result with its call id, until the model stops calling tools. Both
//! sides stop by themselves; the process exits non-zero if anything
//! failed.

use std::error::Error;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use tool_carrier::history::{Record, ToolCall, ToolResult};
use tool_carrier::media::{store::DirStore, Policy};
use tool_carrier::provider::{Options, Provider, Request};
use tool_carrier::roots::Roots;
use tool_carrier::rules::{check_json, Target};
use tool_carrier::Conversation;

type Failure = Box<dyn Error + Send + Sync>;

/// How long either side waits for the other.
const PATIENCE: Duration = Duration::from_secs(20);

fn main() -> Result<(), Failure> {
    let session = run()?;
    for (n, exchange) in session.exchanges.iter().enumerate() {
        println!(
            "request {}: {} bytes, images: {}, passed every rule; answered with {}",
            n + 1,
            exchange.request_bytes,
            exchange.images,
            exchange.answer
        );
    }
    println!("the model's last word: {}", session.last_text);
    Ok(())
}

/// One request and what answered it.
pub struct Exchange {
    /// The request body's size.
    pub request_bytes: usize,
    /// The images it held.
    pub images: usize,
    /// Which recorded response answered it.
    pub answer: String,
    /// The request body, as the mock received it.
    pub body: String,
}

/// What a run did.
pub struct Session {
    /// Every request, in order.
    pub exchanges: Vec<Exchange>,
    /// The records of the conversation at the end.
    pub records: Vec<Record>,
    /// The text of the model's last turn.
    pub last_text: String,
}

/// Run the loop: the mock in a thread, the agent here.
pub fn run() -> Result<Session, Failure> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let recorded = recorded(&examples.join("loop"))?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    let model = Options::new().model_for(Provider::Anthropic).to_owned();
    let answers: Vec<String> = recorded.iter().map(|(name, _)| name.clone()).collect();
    let mock = thread::spawn(move || serve(listener, recorded, &model));

    let media = std::env::temp_dir().join(format!("tool-carrier-loop-{}", std::process::id()));
    std::fs::create_dir_all(&media)?;
    let agent = agent(address, &examples.join("shots"), &media);
    let _ = std::fs::remove_dir_all(&media);
    let received = mock.join().map_err(|_| "the mock provider panicked")?;
    let (records, last_text, sent) = agent?;
    let bodies = received?;
    if bodies.len() != sent.len() {
        return Err(format!(
            "sent {} requests, the mock saw {}",
            sent.len(),
            bodies.len()
        )
        .into());
    }
    let exchanges = bodies
        .into_iter()
        .zip(sent)
        .zip(answers)
        .map(|((body, (request_bytes, images)), answer)| Exchange {
            request_bytes,
            images,
            answer,
            body,
        })
        .collect();
    Ok(Session {
        exchanges,
        records,
        last_text,
    })
}

/// What the agent ends with: its records, the model's last text, and per
/// request its size and image count.
type AgentEnd = (Vec<Record>, String, Vec<(usize, usize)>);

/// The agent: request, answer, tools, until the model stops calling them.
fn agent(address: SocketAddr, shots: &Path, media: &Path) -> Result<AgentEnd, Failure> {
    let policy = Policy::default().with_roots(Roots::new([media])?);
    let mut conversation =
        Conversation::new(Provider::Anthropic, Options::new().with_policy(policy));
    conversation.push("system", "You operate a desktop. Be brief.");
    conversation.push_user("Why does the build fail?");
    let mut store = DirStore::new(media)?;
    let mut sent = Vec::new();
    for _ in 0..10 {
        let request = conversation.request()?;
        sent.push((request.json().len(), request.report.images));
        let answer = post(address, &request)?;
        let turn = conversation.push_response(&answer)?;
        if turn.calls().is_empty() {
            return Ok((
                conversation.records().to_vec(),
                turn.text().to_owned(),
                sent,
            ));
        }
        for call in turn.calls() {
            let result = tool(call, shots, &mut store)?;
            conversation.push_result(&result)?;
        }
    }
    Err("the model did not stop after 10 turns".into())
}

/// Run one tool: a screenshot (bytes in memory, as a capture library
/// returns them) or a file read.
fn tool(call: &ToolCall, shots: &Path, store: &mut DirStore) -> Result<ToolResult, Failure> {
    let arguments: serde_json::Value = serde_json::from_str(&call.arguments)?;
    Ok(match call.name.as_str() {
        "screenshot" => {
            let shot = if arguments.get("region").is_some() {
                "panel7.png"
            } else {
                "editor.png"
            };
            let bytes = std::fs::read(shots.join(shot))?;
            ToolResult::new(&call.id, "Captured the screen.").attach_bytes(&bytes, store)?
        }
        "read_file" => match arguments["path"].as_str() {
            Some("src/main.rs") => ToolResult::new(&call.id, "fn main() -> u32 {}"),
            path => ToolResult::new(&call.id, format!("no such file: {path:?}")).failed(),
        },
        other => ToolResult::new(&call.id, format!("unknown tool {other}")).failed(),
    })
}

/// POST the request to the mock; the response's body.
fn post(address: SocketAddr, request: &Request) -> Result<String, Failure> {
    let mut stream = TcpStream::connect_timeout(&address, PATIENCE)?;
    stream.set_read_timeout(Some(PATIENCE))?;
    let body = request.json();
    let mut head = format!(
        "POST /v1/messages HTTP/1.1\r\nHost: {address}\r\ncontent-type: application/json\r\nanthropic-version: 2023-06-01\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in &request.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    // A refusal's body is the API's error: reading it says what it is.
    let (_, body) = answer
        .split_once("\r\n\r\n")
        .ok_or("the mock's answer has no header end")?;
    Ok(body.to_owned())
}

/// The recorded responses, in the order of their names.
fn recorded(folder: &Path) -> Result<Vec<(String, String)>, Failure> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            Ok((name, std::fs::read_to_string(&path)?))
        })
        .collect()
}

/// The mock provider: one connection per recorded response, each request
/// checked against the API's rules; a request that breaks one is answered
/// with a 400 and the API's error body. Returns the bodies received.
fn serve(
    listener: TcpListener,
    recorded: Vec<(String, String)>,
    model: &str,
) -> Result<Vec<String>, Failure> {
    listener.set_nonblocking(true)?;
    let mut bodies = Vec::new();
    for (name, answer) in recorded {
        let started = Instant::now();
        let stream = loop {
            match listener.accept() {
                Ok((stream, _)) => break stream,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if started.elapsed() > PATIENCE {
                        return Ok(bodies); // the agent stopped early
                    }
                    thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(e.into()),
            }
        };
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(Some(PATIENCE))?;
        let body = read_request(&stream)?;
        let broken = check_json(&Target::new(Provider::Anthropic, model), &body)?;
        let (status, kind, answer) = match broken.first() {
            None => ("200 OK", content_type(&name), answer),
            Some(v) => (
                "400 Bad Request",
                "application/json",
                serde_json::json!({"type": "error", "error": {
                    "type": "invalid_request_error",
                    "message": format!("{}: {}", v.at, v.detail)}})
                .to_string(),
            ),
        };
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        )?;
        bodies.push(body);
    }
    Ok(bodies)
}

fn content_type(name: &str) -> &'static str {
    if name.ends_with(".sse") {
        "text/event-stream"
    } else {
        "application/json"
    }
}

/// One HTTP request's body (its length from `content-length`).
fn read_request(stream: &TcpStream) -> Result<String, Failure> {
    let mut reader = BufReader::new(stream);
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err("the request ended inside its head".into());
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(value.trim().parse::<usize>()?);
            }
        }
    }
    let mut body = vec![0; length.ok_or("a request without content-length")?];
    reader.read_exact(&mut body)?;
    Ok(String::from_utf8(body)?)
}
