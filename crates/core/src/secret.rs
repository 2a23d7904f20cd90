//! Keys kept out of debug output.

/// A secret as `{:?}` shows it: its length, never its characters. Types holding a key implement
/// `Debug` by hand and show the key through this, so that a logged settings value or request never
/// carries it.
pub struct Hidden<'a>(pub Option<&'a str>);

impl std::fmt::Debug for Hidden<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(secret) => write!(f, "Some([hidden, {} characters])", secret.chars().count()),
            None => f.write_str("None"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_shows_its_length_only() {
        assert_eq!(format!("{:?}", Hidden(Some("sk-123456"))), "Some([hidden, 9 characters])");
        assert_eq!(format!("{:?}", Hidden(None)), "None");
    }
}
