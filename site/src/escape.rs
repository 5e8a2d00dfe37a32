//! The one escaping of text that leaves for a terminal or a GitHub
//! annotation. Problems, notes, file paths and top-level errors carry text
//! from submitted files (a JSON key that serde echoes in "unknown field",
//! a value in "unknown variant", the file's own name), and a control
//! character there would otherwise reach the reader raw: ESC starts a
//! terminal escape sequence (colours, cursor moves, a window title), CR
//! and LF start a line that can pass for one of the check's own ("0 files
//! accepted"), and GitHub's log viewer honours ANSI escapes too.
//!
//! Every printer calls `text` (or `lines`, for the site's own multi-line
//! errors) on what it prints, so no path is missed however the text got
//! into a message. The form is Rust's `escape_debug`: `\n`, `\r`, `\t`,
//! and `\u{1b}` for the rest. A backslash is left as it is, so escaping
//! twice changes nothing.

use std::borrow::Cow;

/// Whether `c` is shown escaped: every C0 and C1 control and DEL
/// (`char::is_control`), the line and paragraph separators, which end a
/// line in some viewers, and the bidirectional formatting characters,
/// which reorder what a terminal shows.
pub fn is_escaped(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `s` with every character of `is_escaped` written as its escape, e.g.
/// `"a\u{1b}[31mb\n"` → `a\u{1b}[31mb\n` (backslashes as printed).
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_escaped) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_escaped(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` line by line, keeping the line breaks: for the site's own
/// multi-line messages (a failed build lists its problems, one a line, each
/// already escaped by the report).
pub fn lines(s: &str) -> String {
    s.split('\n').map(text).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::{lines, text};

    #[test]
    fn controls_are_escaped_and_other_text_is_kept() {
        assert_eq!(text("plain, ünïcode: 50%"), "plain, ünïcode: 50%");
        assert_eq!(text("a\u{1b}[31mb\u{7}c\rd\ne\tf"), "a\\u{1b}[31mb\\u{7}c\\rd\\ne\\tf");
        assert_eq!(text("\u{0}\u{7f}\u{85}\u{9b}"), "\\u{0}\\u{7f}\\u{85}\\u{9b}");
        assert_eq!(text("x\u{202e}y\u{2028}z\u{2066}"), "x\\u{202e}y\\u{2028}z\\u{2066}");
        // Escaping twice changes nothing: a backslash is not escaped.
        assert_eq!(text(&text("\u{1b}")), "\\u{1b}");
        assert_eq!(text("C:\\results"), "C:\\results");
    }

    #[test]
    fn lines_keeps_the_line_breaks() {
        assert_eq!(lines("first\u{1b}\n  second\r"), "first\\u{1b}\n  second\\r");
    }
}
