//! Where the gateway forwards to: the upstream's URL, the client (TLS with
//! the platform's roots and `--upstream-ca`, HTTP/1.1 only), and the
//! request as the upstream is sent it.

use std::path::Path;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

use super::body::Out;
use crate::Failure;

/// The upstream, and a client to it.
pub struct Upstream {
    /// `scheme://authority`, as given.
    base: String,
    scheme: hyper::http::uri::Scheme,
    authority: hyper::http::uri::Authority,
    /// A path the upstream's requests start with, without a trailing `/`.
    prefix: String,
    client: Client<HttpsConnector<HttpConnector>, Out>,
}

impl Upstream {
    /// The upstream at `url` (`http` or `https`, no query), trusting the
    /// platform's roots and the certificates of `ca`.
    pub fn new(url: &str, ca: Option<&Path>) -> Result<Upstream, Failure> {
        let bad = |why: &str| Failure::new(format!("--upstream {url}: {why}"));
        let uri: Uri = url.parse().map_err(|e| bad(&format!("not a URL: {e}")))?;
        let scheme = uri
            .scheme()
            .cloned()
            .ok_or_else(|| bad("no scheme (http:// or https://)"))?;
        if scheme != hyper::http::uri::Scheme::HTTP && scheme != hyper::http::uri::Scheme::HTTPS {
            return Err(bad("the scheme is neither http nor https"));
        }
        let authority = uri.authority().cloned().ok_or_else(|| bad("no host"))?;
        if uri.query().is_some() {
            return Err(bad("a query: requests keep their own"));
        }
        let prefix = uri.path().trim_end_matches('/').to_owned();
        let https = connector(
            ca,
            scheme == hyper::http::uri::Scheme::HTTPS,
            &format!("--upstream {url}"),
        )?;
        let client = Client::builder(TokioExecutor::new()).build(https);
        Ok(Upstream {
            base: format!("{scheme}://{authority}{prefix}"),
            scheme,
            authority,
            prefix,
            client,
        })
    }

    /// The upstream as given, for messages.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Send the client's request (its method, path, query and end-to-end
    /// headers) with `body`, `length` bytes when the gateway made it.
    pub async fn send(
        &self,
        parts: &hyper::http::request::Parts,
        body: Out,
        length: Option<usize>,
    ) -> Result<hyper::Response<Incoming>, hyper_util::client::legacy::Error> {
        let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        let uri = Uri::builder()
            .scheme(self.scheme.clone())
            .authority(self.authority.clone())
            .path_and_query(format!("{}{path}", self.prefix))
            .build()
            .expect("a path the client sent, after a valid prefix");
        let mut request = Request::builder()
            .method(parts.method.clone())
            .uri(uri)
            .body(body)
            .expect("parts of a request received");
        let headers = request.headers_mut();
        *headers = end_to_end(&parts.headers);
        headers.remove(header::HOST);
        headers.insert(
            header::HOST,
            HeaderValue::from_str(self.authority.as_str()).expect("an authority is a header value"),
        );
        if let Some(length) = length {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
        }
        self.client.request(request).await
    }
}

/// An HTTP/1.1 connector, plain or over TLS (rustls with ring) trusting
/// the platform's roots and the certificates of `ca`; `https` when the
/// first URL it is for needs a root (else none found is no error). `flag`
/// names what it is for, in messages.
pub fn connector(
    ca: Option<&Path>,
    https: bool,
    flag: &str,
) -> Result<HttpsConnector<HttpConnector>, Failure> {
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    let (added, _) = roots.add_parsable_certificates(native.certs);
    if let Some(ca) = ca {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(ca)
            .and_then(|certs| certs.collect())
            .map_err(|e| Failure::new(format!("--upstream-ca {}: {e}", ca.display())))?;
        if certs.is_empty() {
            return Err(Failure::new(format!(
                "--upstream-ca {}: no certificate in it (PEM, BEGIN CERTIFICATE)",
                ca.display()
            )));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| Failure::new(format!("--upstream-ca {}: {e}", ca.display())))?;
        }
    } else if added == 0 && https {
        return Err(Failure::new(format!(
            "{flag}: no root certificate found on this system to trust it by; name one with --upstream-ca"
        )));
    }
    // ring, as chosen for its plain build (aws-lc-rs, which rustls now
    // prefers for post-quantum key exchange, needs cmake).
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    // HTTP/1.1 is what `enable_http1` offers by ALPN.
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Failure::new(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .build())
}

/// The hop-by-hop headers (RFC 9110 §7.6.1), which are the connection's,
/// not the message's.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
];

/// `headers` without the hop-by-hop ones (those `Connection` names too)
/// and without `Transfer-Encoding`, which the next hop sets for itself.
pub fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    let mut out = headers.clone();
    for name in HOP_BY_HOP.iter().copied() {
        out.remove(name);
    }
    for name in named {
        out.remove(name);
    }
    out.remove(header::TRANSFER_ENCODING);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_stay_behind() {
        let mut h = HeaderMap::new();
        h.insert("connection", HeaderValue::from_static("keep-alive, x-hop"));
        h.insert("x-hop", HeaderValue::from_static("1"));
        h.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        h.insert("transfer-encoding", HeaderValue::from_static("chunked"));
        h.insert("x-api-key", HeaderValue::from_static("secret"));
        h.append("anthropic-beta", HeaderValue::from_static("a"));
        h.append("anthropic-beta", HeaderValue::from_static("b"));
        let out = end_to_end(&h);
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out["x-api-key"], "secret");
        assert_eq!(out.get_all("anthropic-beta").iter().count(), 2);
    }

    #[test]
    fn an_upstream_is_http_or_https_without_a_query() {
        let err = |url: &str| Upstream::new(url, None).err().unwrap().to_string();
        assert!(err("ftp://example.com").contains("neither http nor https"));
        assert!(
            err("example.com").contains("no scheme"),
            "{}",
            err("example.com")
        );
        assert!(err("http://example.com/?a=1").contains("a query"));
        let up = Upstream::new("http://127.0.0.1:9/prefix/", None).unwrap();
        assert_eq!(up.base(), "http://127.0.0.1:9/prefix");
    }
}
