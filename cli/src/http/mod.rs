//! What the command's HTTP servers share (`gateway`, `mcp-proxy --http`):
//! the accept loop within a connection limit, a graceful stop, and the
//! loopback-only default.

pub mod serve;

use std::net::SocketAddr;

use http_body_util::BodyExt;
use hyper::body::Incoming;

use crate::Failure;

/// Read `body` to its end, keeping nothing: a request refused for its size
/// is answered once the client has sent it, so it reads the answer rather
/// than a broken pipe.
pub async fn drain(mut body: Incoming) {
    while let Some(Ok(_)) = body.frame().await {}
}

/// Refuse an address other hosts can reach unless `allowed`; `why` says
/// what a remote client could do.
pub fn loopback_unless(addr: SocketAddr, allowed: bool, why: &str) -> Result<(), Failure> {
    if addr.ip().is_loopback() || allowed {
        return Ok(());
    }
    Err(Failure::new(format!(
        "{addr}: not a loopback address; {why}, so serving other hosts takes --allow-remote"
    )))
}
