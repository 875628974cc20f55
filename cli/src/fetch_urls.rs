//! `convert --fetch-urls HOST,…`: the `http(s)` attachments of a history
//! fetched for a provider that takes no URL, from the hosts named and no
//! other. A redirect is followed only to the same host (at most
//! [`MAX_REDIRECTS`]); the whole fetch, redirects included, is held to a
//! time limit, and the answer to a size limit (its `Content-Length`
//! first, then every byte read). Only a 2xx answer's bytes are taken;
//! they are then checked and fitted by the library as a local file's are.

use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::header;
use hyper::Uri;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use tool_carrier::media::{MediaError, UrlFetcher};

use crate::gateway::upstream::connector;
use crate::Failure;

/// The most redirects one fetch follows.
pub const MAX_REDIRECTS: usize = 5;

/// Fetches URLs of the allowed hosts.
pub struct Fetcher {
    /// Host names, lower case, without a port (any port of one is
    /// allowed).
    hosts: Vec<String>,
    max_bytes: u64,
    timeout: Duration,
    runtime: tokio::runtime::Runtime,
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
}

impl Fetcher {
    /// A fetcher of `hosts` (`--fetch-urls`), each answer at most
    /// `max_bytes`, each fetch within `timeout`.
    ///
    /// # Errors
    /// A host that is not a bare host name (a scheme, a path, a port or
    /// nothing), or no TLS set-up.
    pub fn new(hosts: &[String], max_bytes: u64, timeout: Duration) -> Result<Fetcher, Failure> {
        let mut allowed = Vec::new();
        for host in hosts {
            let host = host.trim();
            let bare = !host.is_empty()
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'))
                && !host.contains("://");
            // `[::1]` is a host; `example.com:8080` is a host and a port.
            let port = !host.starts_with('[') && host.contains(':');
            if !bare || port {
                return Err(Failure::new(format!(
                    "--fetch-urls {host:?}: a host name, as in example.com or 127.0.0.1 (any port, http or https)"
                )));
            }
            allowed.push(host.to_ascii_lowercase());
        }
        if timeout.is_zero() {
            return Err(Failure::new("--fetch-timeout: at least 1 second"));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("fetch-urls")
            .enable_all()
            .build()
            .map_err(|e| Failure::new(format!("--fetch-urls: {e}")))?;
        let connector = connector(None, false, "--fetch-urls")?;
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Ok(Fetcher {
            hosts: allowed,
            max_bytes,
            timeout,
            runtime,
            client,
        })
    }

    /// Whether `uri`'s host is one of the allowed.
    fn allows(&self, uri: &Uri) -> bool {
        uri.host()
            .is_some_and(|h| self.hosts.iter().any(|a| a.eq_ignore_ascii_case(h)))
    }

    /// The bytes at `url`, or why not.
    async fn get(&self, url: &str) -> Result<Vec<u8>, String> {
        let mut uri: Uri = url.parse().map_err(|e| format!("not a URL: {e}"))?;
        let first_host = uri.host().unwrap_or_default().to_ascii_lowercase();
        for _ in 0..=MAX_REDIRECTS {
            match uri.scheme_str() {
                Some("http" | "https") => {}
                _ => return Err("only http and https URLs are fetched".into()),
            }
            let host = uri.host().unwrap_or_default();
            if !host.eq_ignore_ascii_case(&first_host) {
                return Err(format!(
                    "redirected to another host ({host}); only the same host is followed"
                ));
            }
            if !self.allows(&uri) {
                return Err(format!("host {host} is not one --fetch-urls names"));
            }
            let response = self
                .client
                .get(uri.clone())
                .await
                .map_err(|e| format!("cannot fetch it: {e}"))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| format!("HTTP {status} without a Location"))?;
                uri = resolve(&uri, location)?;
                continue;
            }
            if !status.is_success() {
                return Err(format!("HTTP {status}"));
            }
            let said = response
                .headers()
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            if let Some(length) = said.filter(|&n| n > self.max_bytes) {
                return Err(format!(
                    "{length} bytes, over the {}-byte limit (--fetch-max-mb)",
                    self.max_bytes
                ));
            }
            let mut body = response.into_body();
            let mut bytes = Vec::with_capacity(said.unwrap_or(0) as usize);
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| format!("cut off: {e}"))?;
                if let Some(data) = frame.data_ref() {
                    if (bytes.len() + data.len()) as u64 > self.max_bytes {
                        return Err(format!(
                            "over the {}-byte limit (--fetch-max-mb)",
                            self.max_bytes
                        ));
                    }
                    bytes.extend_from_slice(data);
                }
            }
            return Ok(bytes);
        }
        Err(format!("more than {MAX_REDIRECTS} redirects"))
    }
}

/// `location` (absolute, or a path on `base`'s host) as a URL.
fn resolve(base: &Uri, location: &str) -> Result<Uri, String> {
    let bad = |e: &dyn std::fmt::Display| format!("a redirect to {location:?}: {e}");
    let uri: Uri = location.parse().map_err(|e| bad(&e))?;
    if uri.scheme().is_some() {
        return Ok(uri);
    }
    if !location.starts_with('/') {
        return Err(bad(&"neither a URL nor an absolute path"));
    }
    let mut parts = base.clone().into_parts();
    parts.path_and_query = uri.path_and_query().cloned();
    Uri::from_parts(parts).map_err(|e| bad(&e))
}

impl UrlFetcher for Fetcher {
    fn fetch(&self, url: &str) -> Result<Vec<u8>, MediaError> {
        let fetched = self
            .runtime
            .block_on(async { tokio::time::timeout(self.timeout, self.get(url)).await });
        let reason = match fetched {
            Ok(Ok(bytes)) => return Ok(bytes),
            Ok(Err(reason)) => reason,
            Err(_) => format!(
                "no whole answer within {} s (--fetch-timeout)",
                self.timeout.as_secs()
            ),
        };
        Err(MediaError::Refused {
            target: url.to_owned(),
            reason: format!("not fetched: {reason}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetcher(hosts: &[&str]) -> Result<Fetcher, Failure> {
        let hosts: Vec<String> = hosts.iter().map(|h| (*h).to_owned()).collect();
        Fetcher::new(&hosts, 1 << 20, Duration::from_secs(1))
    }

    #[test]
    fn hosts_are_bare_names() {
        assert!(fetcher(&["Example.COM", "127.0.0.1", "[::1]"]).is_ok());
        for bad in [
            "",
            "https://a.com",
            "a.com/x",
            "a.com:8080",
            "*.a.com",
            "a b",
        ] {
            let err = fetcher(&[bad]).err().unwrap().to_string();
            assert!(err.contains("--fetch-urls"), "{bad}: {err}");
        }
        let f = fetcher(&["Example.COM"]).unwrap();
        assert!(f.allows(&"https://example.com/a.png".parse().unwrap()));
        assert!(f.allows(&"http://EXAMPLE.com:9/a.png".parse().unwrap()));
        assert!(!f.allows(&"https://cdn.example.com/a.png".parse().unwrap()));
    }

    #[test]
    fn a_redirect_resolves_against_its_url() {
        let base: Uri = "http://a.test:81/x/y.png?q=1".parse().unwrap();
        assert_eq!(
            resolve(&base, "/z.png").unwrap().to_string(),
            "http://a.test:81/z.png"
        );
        assert_eq!(
            resolve(&base, "https://b.test/w").unwrap().to_string(),
            "https://b.test/w"
        );
        assert!(resolve(&base, "z.png").is_err());
    }
}
