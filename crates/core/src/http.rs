//! How a failed HTTP exchange is told to a person, the same for every client litnav has (the
//! scholarly source's and the LLM endpoint's): the cause in words, never the request's URL (which
//! may carry a key).

use std::time::Duration;

/// `error`, a transport failure of an exchange allowed `timeout`, in words.
pub fn describe(error: &ureq::Error, timeout: Duration) -> String {
    match error {
        ureq::Error::Timeout(_) => format!("no answer within {:.0} s", timeout.as_secs_f64()),
        ureq::Error::ConnectionFailed => "could not connect".to_string(),
        ureq::Error::HostNotFound => "the host was not found".to_string(),
        ureq::Error::Io(e) => format!("the connection failed ({})", e.kind()),
        other => format!("the request failed ({other})"),
    }
}

/// Whether `error` means nothing answered at the address (as against a slow or broken answer).
pub fn is_unreachable(error: &ureq::Error) -> bool {
    matches!(error, ureq::Error::ConnectionFailed | ureq::Error::HostNotFound | ureq::Error::Io(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connection_is_told_in_words() {
        let error = ureq::get("http://127.0.0.1:9/").call().unwrap_err();
        assert!(is_unreachable(&error), "{error:?}");
        let said = describe(&error, Duration::from_secs(5));
        assert!(said.contains("connect"), "{said}");
    }

    #[test]
    fn a_timeout_names_the_time_allowed() {
        let said = describe(&ureq::Error::Timeout(ureq::Timeout::Global), Duration::from_secs(60));
        assert_eq!(said, "no answer within 60 s");
    }
}
