//! Lines of a text as the edits see them: where one starts and ends, and how it ends.

/// Start of the line holding byte `at`.
pub fn line_start(bytes: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1)
}

/// Byte just past the line holding byte `at` (its terminator included), or the end of a
/// text that has no final newline.
pub fn line_end(bytes: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p + 1)
}

/// The terminator of the last line that ends at or before `at`, else the file's first one.
/// After an unterminated last line, that is the line before it, not the first of the file:
/// in a file of mixed endings the inserted lines end like their neighbours.
pub fn eol_before(text: &str, at: usize) -> &'static str {
    let b = text.as_bytes();
    let nl = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .or_else(|| b.iter().position(|&c| c == b'\n'));
    match nl {
        Some(p) if p > 0 && b[p - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_lines_end_like_the_nearest_line_before() {
        assert_eq!(eol_before("a\r\nb\n", 5), "\n");
        assert_eq!(eol_before("a\r\nb\n", 3), "\r\n");
        // After an unterminated last line: the line before it, not the file's first.
        assert_eq!(eol_before("a\nb\r\nc", 6), "\r\n");
        assert_eq!(eol_before("a\r\nb\nc", 6), "\n");
        // Nothing before: the file's first terminator, else LF.
        assert_eq!(eol_before("a\r\nb", 0), "\r\n");
        assert_eq!(eol_before("abc", 3), "\n");
    }
}
