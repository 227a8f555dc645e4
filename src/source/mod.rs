//! Sources: the kinds of file that hold actions, and which of them claims a file. Each is
//! one implementation of [`Source`]: it says which files are its own, reads one file's
//! syntax into actions (as [`ActionView`](crate::view::ActionView)s), plans their edits in
//! that syntax and checks the edited text by reading it again, on [`crate::fix`]'s path to
//! a checked [`Plan`](crate::fix::plan::Plan). The walk asks every source, the run plans
//! each file with the source that claimed it, and every output reads the same per-file
//! results; a new kind of file is a folder here, one implementation of [`Source`] and one
//! line in [`SOURCES`]. An MCP `tools/list` ([`mcp`]) is read into the same views, for
//! `audit` and `lint --tools`; [`live`] gets one from a running server.

pub mod connector;
pub mod kind;
pub mod live;
pub mod mcp;
pub mod openapi;
pub mod server;

use std::path::Path;

use crate::error::Error;

use kind::Source;

/// Every source, asked in this order: connector files are decided by name, before any
/// content is read.
pub const SOURCES: [&dyn Source; 3] = [&connector::Connector, &openapi::OpenApi, &server::Server];

/// The source that claims a file found by the walk, if any.
pub fn claiming(name: &str, path: &Path) -> Option<&'static dyn Source> {
    SOURCES.into_iter().find(|s| s.claims(name, path))
}

/// Whether a source claims the file: what the walk is given (`run::walk::Claims`).
pub fn claims(name: &str, path: &Path) -> bool {
    claiming(name, path).is_some()
}

/// Why the walk leaves out a claimed file, when it does: server source that is generated or
/// a test's ([`server::left_out`]), named rather than read.
pub fn left_out(name: &str, rel: &str) -> Option<&'static str> {
    server::language(name).and_then(|_| server::left_out(rel))
}

/// The source of a file the walk admitted, from its name (`rel` or a file name).
pub fn of_file(name: &str) -> &'static dyn Source {
    let name = name.rsplit('/').next().unwrap_or(name);
    SOURCES
        .into_iter()
        .find(|s| s.owns_name(name))
        .unwrap_or(&connector::Connector)
}

/// Reads a connector file as text; a BOM stays in the text (it is part of the bytes the
/// patch must preserve) and the YAML scanner skips it.
pub fn read_text(path: &Path) -> Result<String, Error> {
    let err = |e: std::io::Error| Error::new(format!("cannot read: {e}")).in_file(path);
    let mut file = std::fs::File::open(path).map_err(err)?;
    let len = file.metadata().map_or(0, |m| m.len() as usize);
    // Room for the inserted `effects` (a few percent of a file), so the text can become the
    // edited text where it is: growing it elsewhere would leave the old buffer resident
    // with the allocator while the edited one is checked.
    let mut bytes = Vec::with_capacity(len + len / 16 + 64);
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(err)?;
    decode(bytes).map_err(|e| e.in_file(path))
}

/// A file's bytes as UTF-8 text, or why they are not, at the line and column where they
/// stop being UTF-8. The tool reads UTF-8 alone: a guessed encoding would be written back
/// in another, and a file read with its bad bytes replaced would be checked for what it
/// does not say.
pub fn decode(bytes: Vec<u8>) -> Result<String, Error> {
    // UTF-16 is what Windows tools (PowerShell's `>`, Notepad's "Unicode") save: every
    // other byte of its ASCII is 0, so it would be named as a binary file at its second byte.
    for (bom, name) in [([0xFF, 0xFE], "UTF-16 LE"), ([0xFE, 0xFF], "UTF-16 BE")] {
        if bytes.starts_with(&bom) {
            return Err(Error::new(format!(
                "not UTF-8 text: {name} (it opens with the byte-order mark {:02X} {:02X}); convert it to UTF-8",
                bom[0], bom[1]
            ))
            .at(1, 1));
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        let start = crate::text::lines::line_start(bytes, valid);
        // The line up to the bad byte is UTF-8, so its characters can be counted.
        let col = std::str::from_utf8(&bytes[start..valid])
            .map_or(valid - start, |s| s.chars().count())
            + 1;
        let byte = bytes[valid];
        // A lone byte from 0x80 up is how Windows-1252 and Latin-1 write `é`, `ü`, `€`:
        // text saved in a legacy encoding, not a binary file.
        let text_after = bytes[valid..]
            .iter()
            .take(64)
            .all(|&b| b >= 0x20 || b"\t\r\n".contains(&b));
        if byte >= 0x80 && text_after {
            Error::new(format!(
                "not UTF-8 text: byte 0x{byte:02X} is no UTF-8 character (a file saved as Windows-1252 or Latin-1?); save it as UTF-8"
            ))
        } else {
            Error::new(format!(
                "not UTF-8 text (binary file?): byte 0x{byte:02X} is no UTF-8 character; the tool reads UTF-8 text only: move the file out of the catalog, or save it as UTF-8"
            ))
        }
        .at(line, col)
    })
}
