//! Figures formatted as the published reports print them: two decimals,
//! en-dash ranges, percent variation, and an em dash where there is no
//! figure.

/// Printed where a figure does not exist (a failed or skipped test).
pub const NONE: &str = "—";

/// Two decimals, e.g. `33392.77`.
pub fn two(v: f64) -> String {
    format!("{v:.2}")
}

/// Two decimals or an em dash.
pub fn two_or_none(v: Option<f64>) -> String {
    v.map_or_else(|| NONE.to_string(), two)
}

/// `min–max` with an en dash, e.g. `29068.42–37639.26`.
pub fn range(min: f64, max: f64) -> String {
    format!("{min:.2}–{max:.2}")
}

/// Percent with two decimals, e.g. `9.29%`.
pub fn percent(v: f64) -> String {
    format!("{v:.2}%")
}

/// Seconds as the cache table prints them: `7.76; 7.12–22.53`.
pub fn seconds_with_range(median: f64, min: f64, max: f64) -> String {
    format!("{median:.2}; {}", range(min, max))
}

/// One decimal, e.g. the cache payload `512.0`.
pub fn one(v: f64) -> String {
    format!("{v:.1}")
}

/// Escapes free text for a markdown table cell or list item so that it
/// reads as the same text and cannot add markup, links, HTML or cells.
///
/// Backslash-escapes `\ | * _ \` [ ] < > &` (CommonMark lets any ASCII
/// punctuation be escaped) and turns newlines into spaces, since a newline
/// would end the table row. An underscore between two letters or digits is
/// left alone: CommonMark never treats an intraword `_` as emphasis, and
/// compiler flags such as `TOTAL_DATA_SIZE=2000` stay as the reports print
/// them. Whitespace at either end is left out: CommonMark opens no `**`
/// before a space and closes none after one, so the bold name of a list
/// item (`**{{ name | md }}**`) with a space at an end showed its
/// asterisks; a table cell drops it anyway.
pub fn escape_markdown(text: &str) -> String {
    let text = text.trim();
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '\r' => {}
            '\n' => out.push(' '),
            '_' => {
                let before = i.checked_sub(1).and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphanumeric());
                let after = chars.get(i + 1).is_some_and(|c| c.is_alphanumeric());
                if !(before && after) {
                    out.push('\\');
                }
                out.push('_');
            }
            '\\' | '|' | '*' | '`' | '[' | ']' | '<' | '>' | '&' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Reverses `escape_markdown` for text read back from a report (newlines
/// excepted, which it cannot know).
pub fn unescape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| n.is_ascii_punctuation()) {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_as_the_reports_print_them() {
        assert_eq!(two(33392.7749), "33392.77");
        assert_eq!(two_or_none(None), "—");
        assert_eq!(range(29068.42, 37639.26), "29068.42–37639.26");
        assert_eq!(percent(9.2912), "9.29%");
        assert_eq!(seconds_with_range(7.76, 7.12, 22.53), "7.76; 7.12–22.53");
        assert_eq!(one(512.0), "512.0");
    }

    #[test]
    fn escaping_keeps_markup_inert() {
        assert_eq!(escape_markdown("a | b"), "a \\| b");
        assert_eq!(escape_markdown("**bold** _x_ `c`"), "\\*\\*bold\\*\\* \\_x\\_ \\`c\\`");
        assert_eq!(escape_markdown("[x](javascript:y) <script>&amp;"), "\\[x\\](javascript:y) \\<script\\>\\&amp;");
        assert_eq!(escape_markdown("line\nbreak\\"), "line break\\\\");
        assert_eq!(escape_markdown("TOTAL_DATA_SIZE=2000"), "TOTAL_DATA_SIZE=2000");
        for s in ["a | b", "**bold** _x_", "[x](y) <b>&", "TOTAL_DATA_SIZE", "\\"] {
            assert_eq!(unescape_markdown(&escape_markdown(s)), s);
        }
    }

    #[test]
    fn a_name_with_space_at_an_end_stays_bold() {
        assert_eq!(escape_markdown(" LibreSpeed\n"), "LibreSpeed");
        for name in [" LibreSpeed", "cleanup ", "\tboth\u{a0}"] {
            let item = format!("- **{}**: text", escape_markdown(name));
            let mut html = String::new();
            pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(&item));
            assert_eq!(html, format!("<ul>\n<li><strong>{}</strong>: text</li>\n</ul>\n", name.trim()));
        }
    }
}
