//! Text from a catalog or a tool list, made safe where a person or a program reads it:
//! a terminal runs escape sequences (`ESC[8m` hid an `unsafe` verdict), a line
//! break forges a row or an annotation, a spreadsheet runs a cell that starts with `=`, and
//! a Markdown viewer renders raw HTML. Only the text of others goes through here; what the
//! tool writes itself is left as it is.

use std::borrow::Cow;

/// Whether `c` is shown as an escape rather than itself: C0 and C1 controls, DEL, and the
/// bidirectional overrides and isolates that reorder what a reader sees ("Trojan source").
fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| hidden(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !hidden(c) || keep(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// One line's worth of text: every control character escaped, line breaks and tabs too
/// (`\n`, `\e`, `\x00`), so it can neither move the cursor nor start a line of its own.
pub fn line(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// Lines of text: as [`line`], but line breaks and tabs are kept.
pub fn lines(s: &str) -> Cow<'_, str> {
    except(s, &['\n', '\t'])
}

/// As [`line`], but the characters of `keep` are kept, for a format that encodes them
/// itself (GitHub's workflow commands encode line breaks).
pub fn except<'a>(s: &'a str, keep: &[char]) -> Cow<'a, str> {
    escape(s, |c| keep.contains(&c))
}

/// The characters a spreadsheet reads as the start of a formula (OWASP's list: `=`, `+`,
/// `-`, `@`, tab, carriage return), and the quote that marks a cell as neutralised.
const FORMULA: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// Control characters a CSV cell may not hold raw (a NUL ends a C string in the tool that
/// reads it): C0 but tab and line breaks, which quoting keeps, and DEL.
fn csv_control(c: char) -> bool {
    (c.is_ascii_control() && !matches!(c, '\t' | '\r' | '\n')) || c == '\u{7f}'
}

/// A CSV cell a spreadsheet shows as text: one that starts like a formula gets a leading
/// `'`, as OWASP recommends; a cell that starts with `'` gets one too. A control character
/// is written `\xNN`. [`csv_read`] gives back what was given (a cell that held the text
/// `\x00` itself reads back as a NUL: such a baseline row is new again, never wrongly old).
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    let escaped: Cow<'_, str> = if s.chars().any(csv_control) {
        let mut out = String::with_capacity(s.len() + 8);
        for c in s.chars() {
            if csv_control(c) {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push(c);
            }
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(s)
    };
    if escaped.starts_with(FORMULA) {
        Cow::Owned(format!("'{escaped}"))
    } else {
        escaped
    }
}

/// The cell [`csv_cell`] was given, from what it wrote.
pub fn csv_read(s: &str) -> Cow<'_, str> {
    let s = match s.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA) => rest,
        _ => s,
    };
    if !s.contains("\\x") {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("\\x") {
        out.push_str(&rest[..at]);
        let hex = rest.get(at + 2..at + 4);
        match hex
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .map(char::from)
            .filter(|&c| csv_control(c))
        {
            Some(c) => {
                out.push(c);
                rest = &rest[at + 4..];
            }
            None => {
                out.push_str("\\x");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Text for a Markdown page outside code spans: controls escaped as [`line`] does, and the
/// characters that open HTML or an entity written as entities, so raw HTML in a connector
/// key shows as text.
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in line(s).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// Text for a Markdown code span: controls escaped, and a backtick (which would close the
/// span and let the rest render) shown as `'`. HTML inside a code span is shown as text.
pub fn markdown_code(s: &str) -> String {
    line(s).replace('`', "'")
}

/// A whole Markdown code span holding `s` exactly (controls escaped): a backtick inside
/// is kept, the span fenced by a longer run of backticks and padded with the one space
/// each side CommonMark strips. Where the span is a command to copy, a backtick shown as
/// `'` would make another command.
pub fn markdown_code_span(s: &str) -> String {
    let s = line(s);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest == 0 {
        return format!("`{s}`");
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {s} {fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_rest_kept() {
        assert_eq!(line("plain é 🚀"), "plain é 🚀");
        assert!(matches!(line("plain"), Cow::Borrowed(_)));
        assert_eq!(line("a\u{1b}[8mb"), "a\\e[8mb");
        assert_eq!(line("a\nb\r\tc\0d\u{7f}"), "a\\nb\\r\\tc\\x00d\\x7f");
        assert_eq!(line("\u{9b}31m \u{202e}x"), "\\x9b31m \\u{202e}x");
        assert_eq!(lines("a\nb\u{1b}\tc"), "a\nb\\e\tc");
    }

    #[test]
    fn formula_cells_are_neutralised_and_read_back() {
        for (cell, written) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+1", "'+1"),
            ("-2", "'-2"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("'=x", "''=x"),
            ("'plain", "''plain"),
            ("plain", "plain"),
            ("a=b", "a=b"),
            ("", ""),
            ("a\0b\u{1b}[8m", "a\\x00b\\x1b[8m"),
            ("=\0", "'=\\x00"),
            ("tab\tand\r\nbreaks", "tab\tand\r\nbreaks"),
            ("a \\x41 stays", "a \\x41 stays"),
        ] {
            assert_eq!(csv_cell(cell), written, "{cell:?}");
            assert_eq!(csv_read(&csv_cell(cell)), cell, "{cell:?}");
        }
    }

    #[test]
    fn markdown_shows_html_as_text() {
        assert_eq!(
            markdown("<img src=x onerror=alert(1)> & co\n"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; co\\n"
        );
        assert_eq!(markdown_code("a`<b>`\u{1b}"), "a'<b>'\\e");
    }
}
