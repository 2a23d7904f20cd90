//! What keeps a local server local: the Host check (a DNS-rebinding page names its own host, not
//! ours), the Origin check on state-changing requests (a drive-by POST from another site carries
//! that site's origin), the token a server bound beyond loopback requires, and the security
//! headers of every response (`Content-Security-Policy: default-src 'self'`: the page runs only
//! the scripts the binary serves).

use crate::error::ApiError;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The checks a server applies, fixed at start.
#[derive(Debug, Clone)]
pub struct Guard {
    /// Host header values accepted (`127.0.0.1:8780`, `localhost:8780`, `[::1]:8780`); empty when
    /// the server is bound beyond loopback and the token protects it instead.
    pub hosts: Vec<String>,
    /// The token every API request must carry (header `Authorization: Bearer …` or the
    /// `litnav_token` cookie the page sets), when the server is reachable from other machines.
    pub token: Option<String>,
}

impl Guard {
    /// The guard of a server listening on `port` of a loopback address.
    pub fn loopback(port: u16) -> Guard {
        Guard {
            hosts: ["127.0.0.1", "localhost", "[::1]"].iter().map(|h| format!("{h}:{port}")).collect(),
            token: None,
        }
    }

    /// The guard of a server reachable from other machines: any Host, the token required.
    pub fn remote(token: String) -> Guard {
        Guard { hosts: Vec::new(), token: Some(token) }
    }

    fn check(&self, method: &Method, path: &str, query: Option<&str>, headers: &HeaderMap) -> Result<(), ApiError> {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
        if !self.hosts.is_empty() && !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(ApiError::forbidden(format!(
                "this server answers requests for {} only, not for host {host:?}",
                self.hosts.join(", ")
            )));
        }
        let changes_state = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
        if changes_state {
            if let Some(origin) = headers.get(header::ORIGIN) {
                let origin = origin.to_str().unwrap_or("");
                let same = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
                if same.is_none_or(|o| !o.eq_ignore_ascii_case(host)) {
                    return Err(ApiError::forbidden(format!(
                        "requests from origin {origin:?} may not change anything here"
                    )));
                }
            }
            let site = headers.get("sec-fetch-site").and_then(|s| s.to_str().ok());
            if site.is_some_and(|s| s == "cross-site") {
                return Err(ApiError::forbidden("cross-site requests may not change anything here"));
            }
        }
        let protected =
            (path.starts_with("/api/") && path != "/api/health") || path == "/mcp" || path.starts_with("/mcp/");
        if let Some(token) = &self.token
            && protected
            && !carries(headers, query, token)
        {
            return Err(ApiError::unauthorized(
                "this server needs its token: open the URL it printed (with ?token=…) or send `Authorization: Bearer <token>`",
            ));
        }
        Ok(())
    }
}

/// Whether the request carries the token (header, cookie, or `token=` in the query).
fn carries(headers: &HeaderMap, query: Option<&str>, token: &str) -> bool {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| constant_time_eq(t, token));
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix("litnav_token="))
        .any(|t| constant_time_eq(t, token));
    let in_query =
        query.unwrap_or("").split('&').filter_map(|p| p.strip_prefix("token=")).any(|t| constant_time_eq(t, token));
    bearer || cookie || in_query
}

fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The middleware: refuse what the guard refuses, set the token cookie when the page is opened
/// with `?token=`, and add the security headers to every response.
pub async fn guard(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    let (method, path, query) =
        (request.method().clone(), request.uri().path().to_string(), request.uri().query().map(str::to_string));
    if let Err(refused) = guard.check(&method, &path, query.as_deref(), request.headers()) {
        let mut response = refused.into_response();
        secure(response.headers_mut());
        return response;
    }
    let mut response = next.run(request).await;
    if let Some(token) = &guard.token
        && path == "/"
        && carries(&HeaderMap::new(), query.as_deref(), token)
        && let Ok(cookie) = HeaderValue::from_str(&format!("litnav_token={token}; Path=/; HttpOnly; SameSite=Strict"))
    {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    secure(response.headers_mut());
    response
}

fn secure(headers: &mut HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        ),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_str(value).unwrap_or(HeaderValue::from_static("")));
        }
        map
    }

    #[test]
    fn loopback_refuses_other_hosts_and_origins() {
        let guard = Guard::loopback(8780);
        let ok = headers(&[(header::HOST, "127.0.0.1:8780")]);
        assert!(guard.check(&Method::GET, "/api/search", None, &ok).is_ok());
        let rebound = headers(&[(header::HOST, "attacker.example:8780")]);
        assert_eq!(guard.check(&Method::GET, "/api/search", None, &rebound).unwrap_err().code, "forbidden");
        let drive_by = headers(&[(header::HOST, "localhost:8780"), (header::ORIGIN, "http://evil.example")]);
        assert!(guard.check(&Method::GET, "/api/maps", None, &drive_by).is_ok(), "reads are not state changes");
        assert_eq!(guard.check(&Method::POST, "/api/maps", None, &drive_by).unwrap_err().code, "forbidden");
        let same = headers(&[(header::HOST, "localhost:8780"), (header::ORIGIN, "http://localhost:8780")]);
        assert!(guard.check(&Method::POST, "/api/maps", None, &same).is_ok());
    }

    #[test]
    fn remote_needs_the_token() {
        let guard = Guard::remote("s3cret".into());
        let host = (header::HOST, "10.0.0.5:8780");
        assert_eq!(
            guard.check(&Method::GET, "/api/search", None, &headers(std::slice::from_ref(&host))).unwrap_err().code,
            "unauthorized"
        );
        assert!(guard.check(&Method::GET, "/api/health", None, &headers(std::slice::from_ref(&host))).is_ok());
        let bearer = headers(&[host.clone(), (header::AUTHORIZATION, "Bearer s3cret")]);
        assert!(guard.check(&Method::GET, "/api/search", None, &bearer).is_ok());
        let cookie = headers(&[host.clone(), (header::COOKIE, "a=b; litnav_token=s3cret")]);
        assert!(guard.check(&Method::GET, "/api/search", None, &cookie).is_ok());
        let wrong = headers(&[host, (header::AUTHORIZATION, "Bearer s3cre7")]);
        assert!(guard.check(&Method::GET, "/api/search", None, &wrong).is_err());
    }
}
