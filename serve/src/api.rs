//! The HTTP/JSON API (`docs/serve.md`, `docs/openapi.yaml`): routes, bearer-token check,
//! body limits, and the live decision stream.
use crate::app::App;
use crate::cluster::{Cmd, Shared};
use crate::error::ApiError;
use crate::writer::Meta;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, MatchedPath, Path, RawQuery, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Router;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

type St = State<Arc<App>>;

/// Most history entries one `GET .../decisions` returns.
pub const PAGE_MAX: usize = 10_000;

/// The router of the whole API.
pub fn router(app: Arc<App>) -> Router {
    let events = post(post_event).layer(DefaultBodyLimit::max(app.max_event_bytes));
    let create = put(create).layer(DefaultBodyLimit::max(app.max_scenario_bytes));
    Router::new()
        .route("/v1/health", get(health))
        .route("/metrics", get(metrics))
        .route("/v1/clusters/{name}", create.get(info).delete(delete))
        .route("/v1/clusters/{name}/events", events)
        .route("/v1/clusters/{name}/decisions", get(decisions))
        .route("/v1/clusters/{name}/log", get(log))
        .route("/v1/clusters/{name}/snapshot", get(snapshot))
        .route("/v1/clusters/{name}/finish", post(finish))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(app.max_event_bytes))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .layer(middleware::from_fn(crate::cors::allow_reads))
        .with_state(app)
}

fn json(status: StatusCode, body: String) -> Response {
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// Bearer token (every route but health), then the request latency by route.
async fn guard(State(app): St, req: Request, next: Next) -> Response {
    let t = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("other", |m| m.as_str())
        .to_string();
    if let Some(token) = &app.token {
        if route != "/v1/health" && !authorised(req.headers(), token) {
            let mut r = ApiError::new(
                StatusCode::UNAUTHORIZED,
                "authorization",
                "missing or wrong bearer token",
            )
            .into_response();
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    let r = next.run(req).await;
    app.metrics().request(&route, t.elapsed());
    r
}

/// `Authorization: Bearer <token>`, compared in constant time.
fn authorised(h: &HeaderMap, token: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    let Some(v) = h.get(header::AUTHORIZATION) else {
        return false;
    };
    let given = v.as_bytes().strip_prefix(b"Bearer ").unwrap_or(b"");
    // Lengths differ: compare the token with itself so the time does not tell where.
    let same_len = given.len() == token.len();
    let probe = if same_len { given } else { token };
    bool::from(probe.ct_eq(token)) && same_len
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "", "no such route")
}

async fn health(State(app): St) -> Response {
    let n = app.clusters.read().map(|c| c.len()).unwrap_or(0);
    json(
        StatusCode::OK,
        serde_json::json!({"status": "ok", "clusters": n}).to_string(),
    )
}

async fn metrics(State(app): St) -> Response {
    let mut r = app.metrics_text().into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    r
}

/// A body, or 413 past the route's limit.
fn body(b: Result<Bytes, BytesRejection>, what: &str) -> Result<Bytes, ApiError> {
    b.map_err(|e| {
        let status = e.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("{what} is larger than the limit of this route (docs/serve.md, \"Limits\")")
        } else {
            format!("cannot read the {what}: {e}")
        };
        ApiError::new(status, "body", message)
    })
}

fn utf8(b: &Bytes, what: &str) -> Result<String, ApiError> {
    String::from_utf8(b.to_vec()).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "",
            format!("{what}: not valid JSON: not UTF-8 ({e})"),
        )
    })
}

/// `key=value` pairs of a query; only the given keys are accepted.
fn query(q: &Option<String>, keys: &[&str]) -> Result<Vec<(String, String)>, ApiError> {
    let mut out = Vec::new();
    for pair in q
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if !keys.contains(&k) {
            let shown: String = k.chars().take(40).flat_map(char::escape_default).collect();
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                &shown,
                format!("unknown query parameter; expected {}", keys.join(", ")),
            ));
        }
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

async fn create(
    State(app): St,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
    b: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    crate::app::check_name(&name)?;
    let mut meta = Meta {
        name,
        policy: None,
        all_categories: false,
    };
    for (k, v) in query(&q, &["policy", "all_categories"])? {
        match k.as_str() {
            "policy" => meta.policy = Some(v),
            _ => {
                meta.all_categories = match v.as_str() {
                    "true" | "1" | "" => true,
                    "false" | "0" => false,
                    _ => {
                        return Err(ApiError::new(
                            StatusCode::BAD_REQUEST,
                            "all_categories",
                            "must be true or false",
                        ))
                    }
                }
            }
        }
    }
    let scenario = utf8(&body(b, "the scenario document")?, "document")?;
    let app2 = app.clone();
    let info = tokio::task::spawn_blocking(move || app2.create(meta, scenario))
        .await
        .map_err(|_| ApiError::unavailable("the creation was interrupted"))??;
    Ok(json(StatusCode::CREATED, info.to_string()))
}

async fn info(State(app): St, Path(name): Path<String>) -> Result<Response, ApiError> {
    let h = app.get(&name)?;
    Ok(json(StatusCode::OK, h.shared.info().to_string()))
}

async fn delete(State(app): St, Path(name): Path<String>) -> Result<Response, ApiError> {
    app.delete(&name).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn post_event(
    State(app): St,
    Path(name): Path<String>,
    b: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let h = app.get(&name)?;
    let text = utf8(&body(b, "the event")?, "event")?;
    let ev = mlsched_scenario::event::parse(&text).map_err(|e| ApiError::input(&e))?;
    let ack = h.ask(|r| Cmd::Event(ev, r)).await?;
    let out = format!(r#"{{"seq":{},"decisions":{}}}"#, ack.seq, ack.decisions);
    Ok(json(StatusCode::OK, out))
}

async fn finish(State(app): St, Path(name): Path<String>) -> Result<Response, ApiError> {
    let h = app.get(&name)?;
    let result = h.ask(Cmd::Finish).await?;
    Ok(json(StatusCode::OK, result))
}

async fn log(State(app): St, Path(name): Path<String>) -> Result<Response, ApiError> {
    let h = app.get(&name)?;
    let bytes = h.ask(Cmd::Log).await?;
    Ok(octets(bytes))
}

async fn snapshot(State(app): St, Path(name): Path<String>) -> Result<Response, ApiError> {
    let h = app.get(&name)?;
    let bytes = h.ask(Cmd::Snapshot).await?;
    Ok(octets(bytes))
}

fn octets(bytes: Vec<u8>) -> Response {
    let mut r = bytes.into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    r
}

async fn decisions(
    State(app): St,
    Path(name): Path<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let h = app.get(&name)?;
    let mut after = 0u64;
    for (_, v) in query(&q, &["after"])? {
        after = v.parse().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "after",
                format!(
                    "must be a seq (a whole number >= 0), got `{}`",
                    v.escape_default()
                ),
            )
        })?;
    }
    let wants_stream = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if wants_stream {
        return Ok(stream(h.shared, after));
    }
    let (items, last) = h.shared.after(after, PAGE_MAX);
    let next = after.min(last) + items.len() as u64;
    let body = format!(
        r#"{{"decisions":[{}],"last_seq":{last},"more":{}}}"#,
        items.join(","),
        next < last
    );
    Ok(json(StatusCode::OK, body))
}

/// Server-sent events: one `decisions` event per seq after `after` (its `id` the seq), live,
/// then `finished` or `deleted` when the cluster ends; a comment every 15 s keeps the
/// connection open through proxies.
fn stream(shared: Arc<Shared>, after: u64) -> Response {
    let rx = shared.seq.subscribe();
    let state = (shared, rx, after, false);
    let s = futures_util::stream::unfold(state, |(sh, mut rx, next, done)| async move {
        if done {
            return None;
        }
        loop {
            let (items, _) = sh.after(next, 256);
            if !items.is_empty() {
                let n = next + items.len() as u64;
                let mut text = String::new();
                for (i, it) in items.iter().enumerate() {
                    let seq = next + i as u64 + 1;
                    text.push_str(&format!("id: {seq}\nevent: decisions\ndata: {it}\n\n"));
                }
                let chunk: Result<Bytes, std::convert::Infallible> = Ok(Bytes::from(text));
                return Some((chunk, (sh, rx, n, false)));
            }
            let end = if sh.deleted.load(Ordering::SeqCst) {
                Some("deleted")
            } else if sh.finished.load(Ordering::SeqCst) {
                Some("finished")
            } else {
                None
            };
            if let Some(e) = end {
                let chunk = Ok(Bytes::from(format!("event: {e}\ndata: {{}}\n\n")));
                return Some((chunk, (sh, rx, next, true)));
            }
            match tokio::time::timeout(Duration::from_secs(15), rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return None,
                Err(_) => {
                    return Some((
                        Ok(Bytes::from_static(b": keep-alive\n\n")),
                        (sh, rx, next, false),
                    ))
                }
            }
        }
    });
    let mut r = Body::from_stream(s).into_response();
    let hs = r.headers_mut();
    hs.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    hs.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}
