//! Cross-origin reads for the browser visualiser's live mode (`docs/visualiser.md`): the page
//! is served from another origin than the service, so the read-only GETs it makes (health,
//! cluster info, decisions and their live stream) answer with `Access-Control-Allow-Origin: *`.
//!
//! Nothing else is opened: no other route or method gets the header, no preflight is answered
//! (a cross-origin request with `Authorization` or a body is not allowed by the browser), and
//! credentials are never allowed, so a page of another origin can read what `curl` on the
//! loopback can, and write nothing.
use axum::extract::{MatchedPath, Request};
use axum::http::{header, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;

/// The routes a page of another origin may read (`GET` only).
pub const READABLE: [&str; 3] = [
    "/v1/health",
    "/v1/clusters/{name}",
    "/v1/clusters/{name}/decisions",
];

/// Adds `Access-Control-Allow-Origin: *` to the answer of a `GET` of a [`READABLE`] route
/// (errors included, so the page can show them).
pub async fn allow_reads(req: Request, next: Next) -> Response {
    let readable = req.method() == Method::GET
        && req
            .extensions()
            .get::<MatchedPath>()
            .is_some_and(|m| READABLE.contains(&m.as_str()));
    let mut r = next.run(req).await;
    if readable {
        r.headers_mut().insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
    }
    r
}
