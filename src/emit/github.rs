//! `--format github`: GitHub Actions workflow commands, so findings show inline on a pull
//! request (`::warning file=…,line=…,col=…,title=…::message`).

use crate::model::finding::{Finding, Level};

/// One workflow command per finding, in the order given, each on its own line, at the
/// finding's own level and titled with its code.
pub fn render(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| command(f, f.level, &f.code))
        .collect()
}

/// GitHub has no `note` annotation; `notice` is its lowest level.
fn command_name(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    }
}

/// One workflow command, with its line break: `level` is the annotation's (a warning that
/// fails the run can be shown as an error), `title` its heading. The file is relative to the
/// repository root, which is where GitHub looks.
pub fn command(f: &Finding, level: Level, title: &str) -> String {
    let mut props: Vec<(&str, String)> = Vec::new();
    let message = match f.ci_file() {
        Some(file) => {
            props.push(("file", file.replace('\\', "/")));
            // A line or column without a file would point nowhere.
            if let Some(line) = f.line {
                props.push(("line", line.to_string()));
                if let Some(col) = f.column {
                    props.push(("col", col.to_string()));
                }
            }
            f.message.clone()
        }
        // Tool lists have no file: the annotation lands on the run, so the message must say
        // which tool it is about.
        None => match &f.tool {
            Some(tool) => format!("{tool}: {}", f.message),
            None => f.message.clone(),
        },
    };
    props.push(("title", title.to_owned()));
    let props: Vec<String> = props
        .into_iter()
        .map(|(k, v)| format!("{k}={}", escape_property(&v)))
        .collect();
    format!(
        "::{} {}::{}\n",
        command_name(level),
        props.join(","),
        escape_data(&message)
    )
}

/// The runner splits commands on line breaks and decodes `%XX`, so those must be encoded.
pub fn escape_data(s: &str) -> String {
    // Control characters are shown escaped (a NUL, an escape sequence): GitHub would decode
    // `%00` back into the annotation.
    crate::text::safe::except(s, &['\r', '\n'])
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Property values are also split on `,` and end at `::`.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(file: Option<&str>, line: Option<usize>, level: Level, message: &str) -> Finding {
        Finding {
            file: file.map(str::to_owned),
            line,
            column: line.map(|_| 3),
            code: "missing-effects".into(),
            level,
            message: message.into(),
            tool: Some("crmly_listContacts".into()),
            ..Finding::default()
        }
    }

    #[test]
    fn one_command_per_finding_with_location() {
        let out = render(&[
            finding(Some("crmly/a.yaml"), Some(12), Level::Warning, "no effects"),
            finding(Some("crmly/b.yaml"), None, Level::Error, "bad"),
            finding(Some("crmly/c.yaml"), Some(1), Level::Note, "unused"),
        ]);
        assert_eq!(
            out,
            "::warning file=crmly/a.yaml,line=12,col=3,title=missing-effects::no effects\n\
             ::error file=crmly/b.yaml,title=missing-effects::bad\n\
             ::notice file=crmly/c.yaml,line=1,col=3,title=missing-effects::unused\n"
        );
    }

    #[test]
    fn findings_without_file_name_the_tool() {
        let out = render(&[finding(None, Some(4), Level::Warning, "no effects")]);
        assert_eq!(
            out,
            "::warning title=missing-effects::crmly_listContacts: no effects\n"
        );
    }

    #[test]
    fn escapes_message_and_properties() {
        let mut f = finding(
            Some("dir,x/a:b%.yaml"),
            Some(2),
            Level::Error,
            "50% off\r\nnext: line, more",
        );
        f.code = "a:b,c".into();
        let out = render(&[f]);
        assert_eq!(
            out,
            "::error file=dir%2Cx/a%3Ab%25.yaml,line=2,col=3,title=a%3Ab%2Cc::50%25 off%0D%0Anext: line, more\n"
        );
        // The whole command stays on one line whatever the message holds.
        assert_eq!(out.lines().count(), 1);
        // Other controls are shown escaped: GitHub would decode `%00` into the annotation.
        let f = finding(Some("a\0.yaml"), None, Level::Warning, "`x\u{1b}[8m\0`");
        assert_eq!(
            render(&[f]),
            "::warning file=a\\x00.yaml,title=missing-effects::`x\\e[8m\\x00`\n"
        );
    }

    #[test]
    fn the_repository_path_and_the_given_level_and_title_win() {
        let mut f = finding(Some("sub/a.yaml"), Some(2), Level::Warning, "no effects");
        f.ci_file = Some("cat/sub/a.yaml".into());
        assert_eq!(
            command(&f, Level::Error, "missing-effects (new)"),
            "::error file=cat/sub/a.yaml,line=2,col=3,title=missing-effects (new)::no effects\n"
        );
    }

    #[test]
    fn empty_input_gives_empty_output() {
        assert_eq!(render(&[]), "");
    }
}
