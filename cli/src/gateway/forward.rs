//! One request through the gateway: a conversation's body read within the
//! limits, fitted and checked off the runtime's threads, and forwarded; any
//! other request forwarded as it came; the response passed back as it
//! comes. What the gateway refuses is answered in the API's error shape,
//! marked by the `x-tool-carrier-error` header.

use std::borrow::Cow;
use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::{BodyExt, Either};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response};
use tool_carrier::gateway::Refusal;

use super::body::{Held, Out};
use super::upstream::end_to_end;
use super::State;

/// The header that marks a response as the gateway's own refusal, with
/// what kind: `refused` (the body), `too-large`, `encoded`, `upstream`,
/// `internal`.
pub const MARK: &str = "x-tool-carrier-error";

/// Answer `request`.
pub async fn handle(
    state: Arc<State>,
    request: Request<Incoming>,
) -> Result<Response<Out>, Infallible> {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let (body, length) = match state.gateway.route(parts.method.as_str(), path) {
        None => (Either::Left(body), None),
        Some(route) => match conversation(Arc::clone(&state), &parts, route, body).await {
            Ok((bytes, budget)) => {
                let length = bytes.len();
                (Either::Right(Held::new(bytes, Some(budget))), Some(length))
            }
            Err((refusal, kind)) => return Ok(refused(&refusal, kind)),
        },
    };
    match state.upstream.send(&parts, body, length).await {
        Ok(response) => {
            let (mut head, body) = response.into_parts();
            head.headers = end_to_end(&head.headers);
            Ok(Response::from_parts(head, Either::Left(body)))
        }
        Err(e) => {
            let why = format!(
                "tool-carrier gateway: the upstream {} did not answer: {}",
                state.upstream.base(),
                chain(&e)
            );
            eprintln!("tool-carrier gateway: {} {path}: {why}", parts.method);
            Ok(refused(&state.gateway.refusal(502, why), "upstream"))
        }
    }
}

/// `body` whole, if within `limit` bytes; `None` (read to its end, kept
/// nowhere) if over it.
async fn read_within(
    mut body: Incoming,
    limit: usize,
    declared: Option<u64>,
) -> Result<Option<Bytes>, hyper::Error> {
    let hint = declared.and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
    let mut out = Vec::with_capacity(hint.min(limit));
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame?.into_data() {
            if out.len() + data.len() > limit {
                drop(out);
                crate::http::drain(body).await;
                return Ok(None);
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(Some(Bytes::from(out)))
}

/// An error and its sources, one after another.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

type Refused = (Refusal, &'static str);

/// A conversation's body read, fitted and checked: the bytes to forward
/// and their share of the budget.
async fn conversation(
    state: Arc<State>,
    parts: &hyper::http::request::Parts,
    route: tool_carrier::gateway::Route,
    body: Incoming,
) -> Result<(Bytes, tokio::sync::OwnedSemaphorePermit), Refused> {
    let gateway = &state.gateway;
    let refuse =
        |status: u16, kind: &'static str, why: String| (gateway.refusal(status, why), kind);
    if let Some(encoding) = parts.headers.get(header::CONTENT_ENCODING) {
        if encoding.as_bytes() != b"identity" {
            return Err(refuse(
                415,
                "encoded",
                format!(
                    "tool-carrier gateway: a conversation's body is fitted as JSON; this one is encoded ({})",
                    String::from_utf8_lossy(encoding.as_bytes())
                ),
            ));
        }
    }
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let too_large = || {
        refuse(
            413,
            "too-large",
            format!(
                "tool-carrier gateway: the body is over the {} MB a conversation may have here (--max-body-mb)",
                state.max_body / super::MB
            ),
        )
    };
    if declared.is_some_and(|n| n > state.max_body) {
        // Read to its end, kept nowhere: a client still sending would see
        // a broken pipe instead of the answer.
        crate::http::drain(body).await;
        return Err(too_large());
    }
    // Held as received, by the fit's working copies (measured at about
    // twice the body: the payloads' new text, the check's reading of the
    // result) and as fitted: four times its length, in KiB.
    let share = declared.unwrap_or(state.max_body).div_ceil(1024) * 4;
    let budget = Arc::clone(&state.buffered)
        .acquire_many_owned(u32::try_from(share).unwrap_or(u32::MAX))
        .await
        .expect("the budget is never closed");
    let limit = usize::try_from(state.max_body).unwrap_or(usize::MAX);
    let received = match read_within(body, limit, declared).await {
        Ok(Some(received)) => received,
        Ok(None) => return Err(too_large()),
        Err(e) => {
            return Err(refuse(
                400,
                "refused",
                format!("tool-carrier gateway: the body was not received whole: {e}"),
            ))
        }
    };
    let method = parts.method.clone();
    let path = parts.uri.path().to_owned();
    let job = (Arc::clone(&state), received.clone());
    let fitted = state.pool.run(move || fit(&job.0, &route, &job.1)).await;
    match fitted {
        Ok((bytes, line)) => {
            eprintln!("tool-carrier gateway: {method} {path} {line}");
            Ok((bytes.unwrap_or(received), budget))
        }
        Err(refusal) => {
            eprintln!("tool-carrier gateway: {method} {path}: {refusal}");
            let kind = if refusal.status() >= 500 {
                "internal"
            } else {
                "refused"
            };
            Err((refusal, kind))
        }
    }
}

/// Fit `received`: the bytes to forward when they changed, and a line for
/// the log.
fn fit(
    state: &State,
    route: &tool_carrier::gateway::Route,
    received: &Bytes,
) -> Result<(Option<Bytes>, String), Refusal> {
    let passed = state.gateway.fit(route, received)?;
    let report = passed.report();
    let line = format!(
        "{}: {} payloads: {} fitted, {} left out, {} kept",
        passed.model(),
        report.items.len(),
        report.fitted(),
        report.left_out(),
        report.kept()
    );
    let bytes = match passed.into_bytes() {
        Cow::Borrowed(_) => None,
        Cow::Owned(bytes) => Some(Bytes::from(bytes)),
    };
    Ok((bytes, line))
}

/// The gateway's answer for `refusal`, marked with `kind`.
pub fn refused(refusal: &Refusal, kind: &'static str) -> Response<Out> {
    let body = Bytes::copy_from_slice(refusal.body());
    let mut response = Response::new(Either::Right(Held::new(body, None)));
    *response.status_mut() =
        hyper::StatusCode::from_u16(refusal.status()).expect("a refusal's status is valid");
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(MARK, HeaderValue::from_static(kind));
    response
}
