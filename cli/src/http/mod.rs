//! What the command's HTTP servers share (`gateway`, `mcp-proxy --http`):
//! the accept loop within a connection limit, a graceful stop, and the
//! loopback-only default.

pub mod serve;

use std::net::SocketAddr;

use crate::Failure;

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
