//! A strict reader of unified diffs, the oracle that checks the patch text: shared by the
//! fuzz target (`invariants.rs`) and the tests (`tests/common`).

/// A hunk header's four numbers and its body lines (sign, text with its real terminator).
type Hunk = (usize, usize, usize, usize, Vec<(char, String)>);
type Header = Option<(usize, usize, usize, usize)>;

/// Applies the unified diff sections of `patch` for one file to `old`, strictly: every hunk
/// header must count its lines, every context and removed line must match `old` exactly
/// (terminators included), and `\ No newline at end of file` must follow a line that has none.
pub fn apply_unified(old: &str, patch: &str) -> Result<String, String> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut pos = 0; // next old line to copy
    let mut lines = patch.split_inclusive('\n').peekable();
    let mut headers = 0;
    // Reads one body line: its sign and its text with the terminator it really has.
    let mut body: Vec<(char, String)> = Vec::new();
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut header: Header = None;
    let flush = |header: &mut Header, body: &mut Vec<(char, String)>, hunks: &mut Vec<Hunk>| {
        if let Some((a, b, c, d)) = header.take() {
            hunks.push((a, b, c, d, std::mem::take(body)));
        }
    };
    while let Some(line) = lines.next() {
        if line.starts_with("diff --git ") || line.starts_with("--- ") || line.starts_with("+++ ") {
            flush(&mut header, &mut body, &mut hunks);
            headers += 1;
            continue;
        }
        if let Some(h) = line.strip_prefix("@@ -") {
            flush(&mut header, &mut body, &mut hunks);
            let h = h.trim_end().trim_end_matches(" @@");
            let (o, n) = h
                .split_once(" +")
                .ok_or(format!("bad hunk header {line:?}"))?;
            let range = |r: &str| -> Result<(usize, usize), String> {
                let (s, c) = r.split_once(',').unwrap_or((r, "1"));
                Ok((
                    s.parse().map_err(|_| format!("bad range {r:?}"))?,
                    c.parse().map_err(|_| format!("bad range {r:?}"))?,
                ))
            };
            let ((a, b), (c, d)) = (range(o)?, range(n)?);
            header = Some((a, b, c, d));
            continue;
        }
        let sign = line.chars().next().ok_or("empty line in patch")?;
        if !matches!(sign, ' ' | '-' | '+') {
            return Err(format!("unexpected patch line {line:?}"));
        }
        let mut text = line[1..].to_owned();
        if lines
            .peek()
            .is_some_and(|l| l.starts_with("\\ No newline at end of file"))
        {
            lines.next();
            text = text
                .strip_suffix('\n')
                .ok_or("no-newline marker after a line without newline")?
                .to_owned();
        }
        body.push((sign, text));
    }
    flush(&mut header, &mut body, &mut hunks);
    if headers != 3 {
        return Err(format!(
            "expected one diff --git/---/+++ header, found {headers} lines"
        ));
    }
    let mut delta: isize = 0;
    for (a, b, c, d, body) in hunks {
        let start = if b == 0 { a } else { a - 1 };
        let new_start = if d == 0 { c } else { c - 1 };
        if new_start as isize != start as isize + delta {
            return Err(format!("hunk -{a},{b} +{c},{d}: new start does not follow"));
        }
        if start < pos {
            return Err(format!("hunk -{a},{b} overlaps the previous one"));
        }
        out.extend(old_lines[pos..start].iter().copied());
        pos = start;
        let (mut olds, mut news) = (0, 0);
        for (sign, text) in body {
            if sign != '+' {
                if old_lines.get(pos).copied() != Some(text.as_str()) {
                    return Err(format!(
                        "hunk -{a},{b}: {sign}{text:?} does not match old line {} {:?}",
                        pos + 1,
                        old_lines.get(pos)
                    ));
                }
                pos += 1;
                olds += 1;
            }
            if sign != '-' {
                out.push_str(&text);
                news += 1;
            }
        }
        if (olds, news) != (b, d) {
            return Err(format!(
                "hunk -{a},{b} +{c},{d} holds {olds} old and {news} new lines"
            ));
        }
        delta += d as isize - b as isize;
    }
    out.extend(old_lines[pos..].iter().copied());
    Ok(out)
}
