//! A connector file's `effects` edits: the key inserted where the action writes its keys, or
//! a conflicting list rewritten in the style it was written. Every other byte stays.

use crate::effects::Effects;
use crate::model::edit::Edit;
use crate::model::site::{ActionSite, EffectsSite, Insert};
use crate::text::lines::{eol_before, line_start};

fn flow_list(effects: Effects) -> String {
    format!("[{}]", effects.joined(", "))
}

/// The edit that adds `effects` to an action that declares none, or why none can be made.
pub fn plan_insert(
    text: &str,
    site: &ActionSite,
    seq_offset: usize,
    effects: Effects,
) -> Result<Edit, &'static str> {
    let edit = |at: usize, new: String| Edit {
        start: at,
        end: at,
        text: new,
        effects,
        map: site.map_start,
        old: String::new(),
        removes: 0,
    };
    match site.insert {
        Insert::Unsafe(why) => Err(why),
        // A mapping written as JSON (its `actionId` key in double quotes) gets JSON: a
        // pretty-printed JSON connector stayed YAML but was no longer JSON.
        Insert::Flow { at } if text[site.map_start..at].contains("\"actionId\"") => {
            let items: Vec<String> = effects.iter().map(|e| format!("\"{e}\"")).collect();
            Ok(edit(at, format!(", \"effects\": [{}]", items.join(", "))))
        }
        Insert::Flow { at } => Ok(edit(at, format!(", effects: {}", flow_list(effects)))),
        Insert::Block { at, indent } => {
            let eol = eol_before(text, at);
            // A file without a final newline keeps that state: the new lines go after a
            // terminator added to the last line, and the last new line gets none.
            let unterminated = at == text.len() && !text.ends_with('\n');
            let mut new = String::with_capacity(64);
            if unterminated {
                new.push_str(eol);
            }
            push_spaces(&mut new, indent);
            new.push_str("effects:");
            for e in effects.iter() {
                new.push_str(eol);
                push_spaces(&mut new, indent + seq_offset);
                new.push_str("- ");
                new.push_str(e.name());
            }
            if !unterminated {
                new.push_str(eol);
            }
            Ok(edit(at, new))
        }
    }
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// The edit that rewrites a conflicting `effects` value in the style it was written, or
/// why it cannot be rewritten without changing other actions too.
pub fn plan_rewrite(
    text: &str,
    site: &EffectsSite,
    map: usize,
    effects: Effects,
) -> Result<Edit, &'static str> {
    if !site.own {
        return Err("its effects come through a `<<` merge, which other actions may share");
    }
    if let Some(why) = site.unsafe_rewrite {
        return Err(why);
    }
    let new = if site.flow {
        flow_list(effects)
    } else {
        let eol = eol_before(text, line_start(text.as_bytes(), site.start));
        let sep = format!("{eol}{}", " ".repeat(site.item_indent));
        effects
            .iter()
            .map(|e| format!("- {e}"))
            .collect::<Vec<_>>()
            .join(&sep)
    };
    Ok(Edit {
        start: site.start,
        end: site.end,
        text: new,
        effects,
        map,
        old: text[site.start..site.end].to_owned(),
        removes: 0,
    })
}
