//! The path patterns of the artifact actions (@actions/glob): `*` and `?`
//! within one path segment, `**` for any number of segments, matched by
//! globset; and the file listing they are matched against.

use std::path::{Path, PathBuf};

/// Whether `pattern` has a glob character.
pub(crate) fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// The folder a pattern searches: its segments before the first glob.
pub(crate) fn search_root(pattern: &str) -> PathBuf {
    let literal: Vec<&str> = pattern.split('/').take_while(|s| !is_glob(s)).collect();
    PathBuf::from(literal.join("/"))
}

/// Whether a `/`-separated relative path matches a `/`-separated pattern:
/// globset with `literal_separator`, so that `*` and `?` stay within one
/// segment, as in @actions/glob. A pattern globset cannot read matches
/// nothing.
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
    globset::GlobBuilder::new(pattern).literal_separator(true).build().is_ok_and(|g| g.compile_matcher().is_match(path))
}

/// Every file below `dir`, as paths relative to it with `/`, sorted.
pub(crate) fn files_below(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        for entry in std::fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let rel = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                todo.push(rel);
            } else {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("part-*.json", "part-save-1.json"));
        assert!(!matches("part-*.json", "parts/part-save-1.json"));
        assert!(matches("**/*.json", "a/b/c.json"));
        assert!(matches("**/*.json", "c.json"));
        assert!(matches("a/**", "a/b/c"));
        assert!(matches("part-?", "part-1"));
        assert!(!matches("part-?", "part-12"));
        assert!(matches("results", "results"));
        assert_eq!(search_root("results/*/x.json"), PathBuf::from("results"));
        assert_eq!(search_root("*.json"), PathBuf::from(""));
    }
}
