//! A comparison group named by what it compares, in words, for headings
//! and leader lines: never by its key, which pages keep behind a details
//! element (docs/methodology.md, "The overview").

use crate::model::{Group, Meta};

/// A comparison group in words: its protocol and whether it was measured
/// here or imported from a published report, e.g. `published protocol 6,
/// measured`, `published protocols 6 and 5, imported from published
/// reports`.
pub(super) fn group_words(g: &Group) -> String {
    let how = if g.imported { "imported from published reports" } else { "measured" };
    let mut protocols: Vec<u32> = g.profiles.iter().filter_map(|p| p.protocol).collect();
    protocols.sort_unstable_by(|a, b| b.cmp(a));
    protocols.dedup();
    let listed: Vec<String> = protocols.iter().map(u32::to_string).collect();
    match listed.split_last() {
        None => format!("no published protocol, {how}"),
        Some((only, [])) => format!("published protocol {only}, {how}"),
        Some((last, rest)) => format!("published protocols {} and {last}, {how}", rest.join(", ")),
    }
}

/// `group_words`, capitalized, and for imported rows (`metas`, the rows
/// of the tables named) whose runners' providers they are (up to three
/// named, else how many) and whether
/// their run dates are published: `Published protocols 6 and 5, imported
/// from published reports on Latchkey and Ubicloud runners, run dates not
/// published`. A measured group whose every row is a try-out (quick
/// profile) says so first: `Try-outs of the quick profile, never ranked
/// (published protocol 1, measured)`.
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
            return format!("Try-outs of the quick profile, never ranked ({})", group_words(g));
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
