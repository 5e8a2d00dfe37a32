//! Stand-in programs for the tests that run the project's shell scripts
//! (submit.rs, release_check.rs, rehearsal.rs): a program the script
//! calls, or a binary it checks, written as an executable script.

use std::path::Path;

/// Writes `text` (a script, from its `#!` line) to `path`, its folder made
/// if missing, and makes it executable.
/// (These tests run on Linux; the file compiles everywhere, for the
/// Windows job's clippy of every target.)
pub(crate) fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a script's path has a folder")).unwrap();
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
