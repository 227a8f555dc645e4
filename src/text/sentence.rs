//! Where a description's first sentence ends, as the findings quote it.

/// Up to the first `.`, `!` or `?` followed by whitespace, or the first blank line.
pub fn first_sentence(text: &str) -> &str {
    let mut end = text.len();
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let next = bytes.get(i + 1).copied();
        let stop = matches!(b, b'.' | b'!' | b'?') && next.is_none_or(|n| n.is_ascii_whitespace());
        if stop {
            end = i + 1;
            break;
        }
        if b == b'\n' && next == Some(b'\n') {
            end = i;
            break;
        }
    }
    text[..end].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_stops_at_period_space() {
        assert_eq!(
            first_sentence("Checks Traefik.me domains. More."),
            "Checks Traefik.me domains."
        );
        assert_eq!(first_sentence("No stop"), "No stop");
        assert_eq!(first_sentence("Title\n\nBody."), "Title");
    }
}
