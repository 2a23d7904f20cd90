//! The one mapping from litnav's error kinds to HTTP: every failure is answered as JSON
//! `{"error": {"code", "message"}}` with the status its kind calls for.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use litnav_core::{ErrorKind, HasKind};
use serde::Serialize;

/// A failed request.
#[derive(Debug, Clone, Serialize)]
pub struct ApiError {
    /// The HTTP status.
    #[serde(skip)]
    pub status: StatusCode,
    /// A stable, machine-readable code (`input`, `not_found`, `conflict`, `unavailable`,
    /// `internal`, `cancelled`, or one of the server's own: `forbidden`, `unauthorized`).
    pub code: &'static str,
    /// What is wrong, in words a person can act on.
    pub message: String,
}

impl ApiError {
    /// A request the client can fix.
    pub fn input(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, code: "input", message: message.into() }
    }

    /// Something named does not exist.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::NOT_FOUND, code: "not_found", message: message.into() }
    }

    /// A request the server refuses on principle (Host, Origin).
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::FORBIDDEN, code: "forbidden", message: message.into() }
    }

    /// A request without the server's token.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::UNAUTHORIZED, code: "unauthorized", message: message.into() }
    }

    /// A bug or a failure of the server itself.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, code: "internal", message: message.into() }
    }
}

/// The HTTP status of an error kind.
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Input => StatusCode::BAD_REQUEST,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict | ErrorKind::Cancelled => StatusCode::CONFLICT,
        ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<litnav_app::Error> for ApiError {
    fn from(error: litnav_app::Error) -> ApiError {
        let kind = error.kind();
        // The whole chain: the context says what was being done, the root what went wrong.
        let mut message = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        ApiError { status: status_of(kind), code: kind.name(), message }
    }
}

#[derive(Serialize)]
struct Body<'a> {
    error: &'a ApiError,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(Body { error: &self })).into_response()
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
