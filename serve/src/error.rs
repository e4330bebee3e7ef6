//! The service's error answer: an HTTP status and `{"error": {"field": ..., "message": ...}}`,
//! the message being the one the CLI prints for the same input.
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mlsched_scenario::{InputError, RunError};

/// An error answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The field at fault (`""` when none is).
    pub field: String,
    /// What went wrong.
    pub message: String,
}

impl ApiError {
    /// An error with `status`.
    pub fn new(status: StatusCode, field: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// 400 for bad input, with the CLI's message.
    pub fn input(e: &InputError) -> Self {
        Self::new(StatusCode::BAD_REQUEST, &e.field, e.to_string())
    }

    /// 400 for bad input; 422 when the scheduler refused an event the input checks let
    /// through (a capacity limit, an internal invariant): the event was not applied.
    pub fn run(e: &RunError) -> Self {
        match e {
            RunError::Input(i) => Self::input(i),
            other => Self::new(StatusCode::UNPROCESSABLE_ENTITY, "", other.to_string()),
        }
    }

    /// 404 for a cluster that does not exist.
    pub fn no_cluster(name: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "name",
            format!("no cluster `{name}`"),
        )
    }

    /// 503: nothing was made durable, nothing acknowledged; try again later.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "", message)
    }

    /// The JSON body.
    pub fn body(&self) -> String {
        serde_json::json!({"error": {"field": self.field, "message": self.message}}).to_string()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.status, self.body()).into_response();
        r.headers_mut().insert(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        );
        r
    }
}
