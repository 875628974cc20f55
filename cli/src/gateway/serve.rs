//! Accepting connections within the limit, and stopping gracefully: on
//! the first SIGTERM or SIGINT no connection is accepted any more, and
//! those open finish what they began (up to the drain time).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use super::State;
use crate::Failure;

/// How many connections, and how long a stop waits.
pub struct Limits {
    pub connections: usize,
    pub drain: Duration,
}

/// Serve on `addr` until a signal, then drain.
pub async fn serve(
    addr: SocketAddr,
    state: Arc<State>,
    limits: Limits,
) -> Result<ExitCode, Failure> {
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
    eprintln!(
        "tool-carrier gateway: {} requests to http://{bound} go to {}; conversations are fitted",
        state.gateway.api(),
        state.upstream.base()
    );
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
                    eprintln!("tool-carrier gateway: accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stopped.changed() => break,
        };
        let _ = stream.set_nodelay(true);
        let state = Arc::clone(&state);
        let service =
            service_fn(move |request| super::forward::handle(Arc::clone(&state), request));
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
        "tool-carrier gateway: stopping; waiting up to {} s for requests in flight",
        limits.drain.as_secs()
    );
    tokio::select! {
        () = graceful.shutdown() => {
            eprintln!("tool-carrier gateway: stopped");
            Ok(ExitCode::SUCCESS)
        }
        () = tokio::time::sleep(limits.drain) => Err(Failure::new(format!(
            "requests still in flight after {} s (--drain-secs) were cut off",
            limits.drain.as_secs()
        ))),
    }
}
