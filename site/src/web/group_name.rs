//! A comparison group named by what it compares, in words, for headings
//! and leader lines: never by its key, which pages keep behind a details
//! element (docs/methodology.md, "The overview").

use crate::model::{Group, Meta};

/// A comparison group in words: who measured it and its protocol, in an
/// order that implies nothing: `measured with the runner-bench collector
/// (protocol 1)`, `imported from published reports (their own protocols 5
/// and 6)`. An imported report's protocol is its publisher's own number,
/// so two of them are different schemes, not versions of one.
pub(super) fn group_words(g: &Group) -> String {
    let mut protocols: Vec<u32> = g.profiles.iter().filter_map(|p| p.protocol).collect();
    protocols.sort_unstable();
    protocols.dedup();
    let listed: Vec<String> = protocols.iter().map(u32::to_string).collect();
    let (how, whose) = if g.imported {
        ("imported from published reports", "their own protocol")
    } else {
        ("measured with the runner-bench collector", "protocol")
    };
    match listed.split_last() {
        None => format!("{how} (no published protocol)"),
        Some((only, [])) => format!("{how} ({whose} {only})"),
        Some((last, rest)) => format!("{how} ({whose}s {} and {last})", rest.join(", ")),
    }
}

/// `group_words`, capitalized, and for imported rows (`metas`, the rows
/// of the tables named) whose runners' providers they are (up to three
/// named, else how many) and whether
/// their run dates are published: `Imported from published reports (their
/// own protocols 5 and 6) on Latchkey and Ubicloud runners, run dates not
/// published`. A measured group whose every row is a try-out (quick
/// profile) says so first: `Try-outs of the quick profile, never ranked:
/// measured with the runner-bench collector (protocol 1)`.
pub(super) fn group_name<'a>(g: &Group, metas: impl IntoIterator<Item = &'a Meta>) -> String {
    let mut name = group_words(g);
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    let metas: Vec<&Meta> = metas.into_iter().collect();
    if !g.imported {
        // A group of quick-profile results only: never ranked, and not
        // the protocol's published profile, so said before anything else.
        if !metas.is_empty() && metas.iter().all(|m| m.tryout) {
            return format!("Try-outs of the quick profile, never ranked: {}", group_words(g));
        }
        return name;
    }
    let mut providers: Vec<&str> = metas.iter().map(|m| &*m.provider_name).collect();
    providers.sort_unstable();
    providers.dedup();
    match providers.as_slice() {
        [] => {}
        [one] => name.push_str(&format!(" on {one} runners")),
        [first @ .., last] if first.len() < 3 => name.push_str(&format!(" on {} and {last} runners", first.join(", "))),
        many => name.push_str(&format!(" on runners of {} providers", many.len())),
    }
    match metas.iter().filter(|m| !m.date_measured).count() {
        0 => {}
        n if n == metas.len() => name.push_str(", run dates not published"),
        _ => name.push_str(", some run dates not published"),
    }
    name
}
