//! The rules a provider file's values follow beyond their types, and where
//! a TOML error is.

use runner_bench_format::Os;

/// `linux, macos or windows`: every OS name a result file may give.
pub(super) fn os_names() -> String {
    let names = Os::ALL.map(Os::name);
    let (last, rest) = names.split_last().expect("Os::ALL is not empty");
    format!("{} or {last}", rest.join(", "))
}

/// Where a TOML syntax error is: `line 3`, or `$` where TOML gives no place.
pub(super) fn toml_field(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(span) => format!("line {}", 1 + text[..span.start.min(text.len())].matches('\n').count()),
        None => "$".to_string(),
    }
}

/// Whether `s` is an `https://` address a page may link to.
pub(super) fn is_https(s: &str) -> bool {
    s.strip_prefix("https://").is_some_and(|rest| {
        !rest.is_empty() && rest.len() < 500 && !rest.chars().any(|c| c.is_whitespace() || crate::escape::is_escaped(c))
    })
}

/// A GitHub owner name, as GitHub allows one for a user or an
/// organisation: 1 to 39 letters, digits and single dashes, neither first
/// nor last. A run record's repository owner is compared with it.
pub(super) fn github_owner(s: &str) -> Result<(), String> {
    let ok = (1..=39).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "must be a GitHub owner name (1 to 39 letters, digits and single dashes, neither first nor last), found \"{}\"",
            crate::escape::text(s)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::github_owner;

    #[test]
    fn owner_names_follow_github_s_rules() {
        for ok in ["acme", "Acme-Cloud", "a", "x1-2-3"] {
            assert_eq!(github_owner(ok), Ok(()), "{ok}");
        }
        assert_eq!(
            github_owner("-acme"),
            Err("must be a GitHub owner name (1 to 39 letters, digits and single dashes, neither first nor last), \
                 found \"-acme\""
                .into())
        );
        for bad in ["", "acme-", "a--b", "acme/x", "a b", &"a".repeat(40)] {
            assert!(github_owner(bad).is_err(), "{bad}");
        }
    }
}
