//! Failures as HTTP: every one is answered as JSON `{"error": {"code", "message"}}` with the status
//! the application's table of codes gives its code.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use litnav_app::codes::Code;
use serde::Serialize;

/// A failed request.
#[derive(Debug, Clone, Serialize)]
pub struct ApiError {
    /// The HTTP status.
    #[serde(skip)]
    pub status: StatusCode,
    /// A stable, machine-readable code from the application's table (`litnav_app::codes`): a
    /// kind's (`input`, `not_found`, `conflict`, `unavailable`, `internal`, `cancelled`), a
    /// specific failure's (`corpus_missing`, `llm_unreachable`, …) or the server's own
    /// (`forbidden`, `unauthorized`).
    pub code: &'static str,
    /// What is wrong, in words a person can act on.
    pub message: String,
    /// Seconds to wait before asking again (a budget's refusal), sent as `Retry-After`.
    #[serde(skip)]
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with `code`, answered with the code's status; its message says nothing of the
    /// machine ([`crate::redact::scrub`]).
    pub fn with_code(code: Code, message: impl Into<String>) -> ApiError {
        let row = code.row();
        let status = StatusCode::from_u16(row.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError { status, code: row.code, message: crate::redact::scrub(&message.into()), retry_after: None }
    }

    /// This failure as the library's error of the same kind (for the MCP tools, which answer
    /// with the library's errors).
    pub fn into_library(self) -> litnav_app::Error {
        let kind = Code::ALL
            .iter()
            .find(|code| code.row().code == self.code)
            .map_or(litnav_core::ErrorKind::Internal, |code| code.row().kind);
        litnav_app::Error::Other { kind, message: self.message }
    }

    /// A request the client can fix.
    pub fn input(message: impl Into<String>) -> ApiError {
        ApiError::with_code(Code::Input, message)
    }

    /// Something named does not exist.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::with_code(Code::NotFound, message)
    }

    /// A request the server refuses on principle (Host, Origin).
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::with_code(Code::Forbidden, message)
    }

    /// A request without the server's token.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::with_code(Code::Unauthorized, message)
    }

    /// A bug or a failure of the server itself.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::with_code(Code::Internal, message)
    }
}

impl From<litnav_app::Error> for ApiError {
    fn from(error: litnav_app::Error) -> ApiError {
        // The whole chain: the context says what was being done, the root what went wrong.
        let mut message = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        ApiError::with_code(error.code(), message)
    }
}

#[derive(Serialize)]
struct Body<'a> {
    error: &'a ApiError,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(Body { error: &self })).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
