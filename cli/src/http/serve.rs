//! Accepting connections within the limit, and stopping gracefully: on
//! the first SIGTERM or SIGINT no connection is accepted any more, and
//! those open finish what they began (up to the drain time).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use std::future::Future;

use hyper::body::{Body, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use crate::Failure;

/// How many connections, and how long a stop waits.
pub struct Limits {
    pub connections: usize,
    pub drain: Duration,
}

/// Serve on `addr` until a signal, answering each request with `handle`,
/// then drain. `name` starts each line of standard error; `started` is
/// called with the address bound (once "listening on" is printed), and
/// `stopping` when the first signal comes, before the requests in flight
/// are waited for.
pub async fn serve<H, F, B>(
    addr: SocketAddr,
    name: &'static str,
    handle: H,
    limits: Limits,
    started: impl FnOnce(SocketAddr),
    stopping: impl FnOnce(),
) -> Result<ExitCode, Failure>
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Result<Response<B>, std::convert::Infallible>> + Send + 'static,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::new(format!("--listen {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Failure::new(format!("--listen {addr}: {e}")))?;
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    crate::interrupt::on_first_signal(move |_| {
        let _ = stop.send(true);
    });
    println!("listening on http://{bound}");
    started(bound);
    let open = Arc::new(tokio::sync::Semaphore::new(limits.connections));
    let graceful = GracefulShutdown::new();
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&open).acquire_owned() => permit.expect("never closed"),
            _ = stopped.changed() => break,
        };
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // A connection reset before it was accepted, or out of
                // descriptors for a moment: the next one is tried.
                Err(e) => {
                    eprintln!("{name}: accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stopped.changed() => break,
        };
        let _ = stream.set_nodelay(true);
        let handle = handle.clone();
        let service = service_fn(handle);
        let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client gone mid-request is its own business.
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    eprintln!(
        "{name}: stopping; waiting up to {} s for requests in flight",
        limits.drain.as_secs()
    );
    stopping();
    tokio::select! {
        () = graceful.shutdown() => {
            eprintln!("{name}: stopped");
            Ok(ExitCode::SUCCESS)
        }
        () = tokio::time::sleep(limits.drain) => Err(Failure::new(format!(
            "requests still in flight after {} s (--drain-secs) were cut off",
            limits.drain.as_secs()
        ))),
    }
}
