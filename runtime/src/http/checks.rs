//! Header checks. Host and Origin (DNS-rebinding protection) for every route ([`Guarded`]):
//! `Host` must name the bound address, a present `Origin` must be the server's own or one given
//! with `--allow-origin`. `Accept` and `Content-Type` of a `POST /mcp` ([`accepts`],
//! [`is_json`]).

use super::{App, HttpError};
use axum::extract::Request;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::Router;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower_service::Service;

/// A normalised origin: scheme, host and port (`None` host for `null`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

fn parse_origin(text: &str) -> Option<Origin> {
    let text = text.trim().trim_end_matches('/');
    let uri: http::Uri = text.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    if uri.path() != "/" && !uri.path().is_empty() {
        return None;
    }
    let port = match authority.port_u16() {
        Some(port) => port,
        None => match scheme.as_str() {
            "http" | "ws" => 80,
            "https" | "wss" => 443,
            _ => return None,
        },
    };
    Some(Origin {
        scheme,
        host: normalize_host(authority.host()),
        port,
    })
}

fn normalize_host(host: &str) -> String {
    host.trim_matches(['[', ']']).to_ascii_lowercase()
}

/// The Host/Origin policy.
#[derive(Debug, Clone)]
pub(super) struct Checks {
    /// Host names the server answers to; empty on unspecified binds (any host).
    hosts: Vec<String>,
    port: u16,
    extra_origins: Vec<Origin>,
    allow_null_origin: bool,
}

impl Checks {
    pub(super) fn new(local: SocketAddr, allowed_origins: &[String]) -> Result<Checks, HttpError> {
        let ip = local.ip();
        let hosts = if ip.is_unspecified() {
            Vec::new()
        } else if ip.is_loopback() {
            vec![normalize_host(&ip.to_string()), "localhost".to_string()]
        } else {
            vec![normalize_host(&ip.to_string())]
        };
        let mut extra_origins = Vec::new();
        let mut allow_null_origin = false;
        for text in allowed_origins {
            if text.trim() == "null" {
                allow_null_origin = true;
                continue;
            }
            extra_origins
                .push(parse_origin(text).ok_or_else(|| HttpError::BadOrigin(text.clone()))?);
        }
        Ok(Checks {
            hosts,
            port: local.port(),
            extra_origins,
            allow_null_origin,
        })
    }

    /// `Err(message)` when the request's Host or Origin is not acceptable.
    pub(super) fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        let host_text = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .ok_or("Forbidden: missing or unreadable Host header")?;
        let authority: http::uri::Authority = host_text
            .parse()
            .map_err(|_| format!("Forbidden: invalid Host header {host_text:?}"))?;
        let host = normalize_host(authority.host());
        let port = authority.port_u16().unwrap_or(80);
        if !self.hosts.is_empty() && (!self.hosts.contains(&host) || port != self.port) {
            return Err(format!(
                "Forbidden: Host {host_text:?} is not this server (DNS-rebinding protection); use http://{}:{}",
                self.hosts[0], self.port
            ));
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let origin_text = origin
            .to_str()
            .map_err(|_| "Forbidden: unreadable Origin header".to_string())?;
        if origin_text.trim() == "null" {
            return if self.allow_null_origin {
                Ok(())
            } else {
                Err("Forbidden: Origin null is not allowed (add --allow-origin null)".into())
            };
        }
        let parsed = parse_origin(origin_text)
            .ok_or_else(|| format!("Forbidden: invalid Origin {origin_text:?}"))?;
        // Same origin: the page was served by this very server under the Host just checked.
        let same_origin = parsed.scheme == "http" && parsed.host == host && parsed.port == port;
        if same_origin || self.extra_origins.contains(&parsed) {
            Ok(())
        } else {
            Err(format!(
                "Forbidden: Origin {origin_text} is not allowed (start the server with --allow-origin {origin_text} to allow it)"
            ))
        }
    }
}

/// The routes behind the Host and Origin checks: a refused request gets 403 before it is routed
/// (any path, any method). A plain service around the router rather than a middleware layer,
/// which would box and clone a service per request.
#[derive(Clone)]
pub(super) struct Guarded {
    app: Arc<App>,
    router: Router,
}

impl Guarded {
    /// `router` behind `app`'s checks.
    pub(super) fn new(app: Arc<App>, router: Router) -> Guarded {
        Guarded { app, router }
    }
}

impl Service<Request> for Guarded {
    type Response = Response;
    type Error = Infallible;
    type Future = GuardedFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // The router is always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> GuardedFuture {
        match self.app.checks.check(request.headers()) {
            Ok(()) => GuardedFuture::Routed(self.router.call(request)),
            Err(message) => {
                tracing::warn!(%message, "request refused");
                GuardedFuture::Refused(Some(super::plain(StatusCode::FORBIDDEN, message)))
            }
        }
    }
}

/// The response future of [`Guarded`].
pub(super) enum GuardedFuture {
    /// The router's.
    Routed(<Router as Service<Request>>::Future),
    /// 403, ready.
    Refused(Option<Response>),
}

impl Future for GuardedFuture {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            GuardedFuture::Routed(routed) => Pin::new(routed).poll(cx),
            GuardedFuture::Refused(response) => {
                Poll::Ready(Ok(response.take().unwrap_or_default()))
            }
        }
    }
}

/// What the client accepts: (JSON, SSE). No `Accept` header accepts both.
pub(super) fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let mut values = headers.get_all(header::ACCEPT).iter().peekable();
    if values.peek().is_none() {
        return (true, true);
    }
    let (mut json, mut sse) = (false, false);
    for value in values {
        let Ok(text) = value.to_str() else { continue };
        for item in text.split(',') {
            let mut parts = item.split(';');
            let essence = parts.next().unwrap_or("").trim();
            let is = |name: &str| essence.eq_ignore_ascii_case(name);
            let refused = parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
            });
            if refused {
                continue;
            }
            if is("*/*") {
                json = true;
                sse = true;
            } else if is("application/json") || is("application/*") {
                json = true;
            } else if is("text/event-stream") || is("text/*") {
                sse = true;
            }
        }
    }
    (json, sse)
}

/// Whether the body is declared as JSON (`application/json`, parameters allowed).
pub(super) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|value| {
            value
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .eq_ignore_ascii_case("application/json")
        })
}

#[cfg(test)]
mod tests {
    use super::super::tests::headers;
    use super::*;

    #[test]
    fn host_and_origin_checks() {
        let checks = Checks::new(
            "127.0.0.1:8765".parse().unwrap(),
            &["https://app.example.com".into()],
        )
        .unwrap();
        assert!(checks
            .check(&headers(&[("host", "127.0.0.1:8765")]))
            .is_ok());
        assert!(checks
            .check(&headers(&[("host", "localhost:8765")]))
            .is_ok());
        assert!(checks
            .check(&headers(&[("host", "evil.example:8765")]))
            .is_err());
        assert!(checks
            .check(&headers(&[("host", "127.0.0.1:9999")]))
            .is_err());
        assert!(checks.check(&headers(&[])).is_err());
        let same = [
            ("host", "localhost:8765"),
            ("origin", "http://localhost:8765"),
        ];
        assert!(checks.check(&headers(&same)).is_ok());
        let allowed = [
            ("host", "127.0.0.1:8765"),
            ("origin", "https://app.example.com"),
        ];
        assert!(checks.check(&headers(&allowed)).is_ok());
        let foreign = [
            ("host", "127.0.0.1:8765"),
            ("origin", "https://evil.example"),
        ];
        assert!(checks.check(&headers(&foreign)).is_err());
        let other_port = [
            ("host", "127.0.0.1:8765"),
            ("origin", "https://app.example.com:8443"),
        ];
        assert!(checks.check(&headers(&other_port)).is_err());
        let null = [("host", "127.0.0.1:8765"), ("origin", "null")];
        assert!(checks.check(&headers(&null)).is_err());
        assert!(Checks::new("127.0.0.1:1".parse().unwrap(), &["not an origin".into()]).is_err());
    }

    #[test]
    fn accept_header_selects_the_answer_form() {
        assert_eq!(accepts(&headers(&[])), (true, true));
        assert_eq!(
            accepts(&headers(&[(
                "accept",
                "application/json, text/event-stream"
            )])),
            (true, true)
        );
        assert_eq!(
            accepts(&headers(&[("accept", "application/json")])),
            (true, false)
        );
        assert_eq!(
            accepts(&headers(&[("accept", "text/event-stream")])),
            (false, true)
        );
        assert_eq!(accepts(&headers(&[("accept", "*/*")])), (true, true));
        assert_eq!(
            accepts(&headers(&[("accept", " Application/JSON ; charset=utf-8")])),
            (true, false)
        );
        assert_eq!(accepts(&headers(&[("accept", "TEXT/*")])), (false, true));
        assert_eq!(
            accepts(&headers(&[("accept", "text/html")])),
            (false, false)
        );
        assert_eq!(
            accepts(&headers(&[(
                "accept",
                "application/json;q=0, text/event-stream"
            )])),
            (false, true)
        );
    }
}
