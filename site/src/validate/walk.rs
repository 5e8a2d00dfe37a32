//! What the walk of a results folder finds besides result files (issue 13,
//! class 7): a link, a file of another name, a FIFO or an entry the walk
//! cannot read is a problem of its own, never passed over in silence, so
//! that `site check results/` cannot accept a folder while files in it
//! went unread. A folder with no result file at all is refused by
//! `site check` (`Checked::refuse_empty_folders`).

use std::path::Path;

use runner_bench_format::MAX_FILE_BYTES;

use super::{Checked, Collector, Problem};
use crate::load::{SkipKind, Skipped};

/// One problem, on the whole entry (`$`), for each entry the walk skipped.
pub(super) fn skipped_rules(c: &mut Collector, skipped: &[Skipped]) {
    for s in skipped {
        c.push(&s.path.display().to_string(), "$", reason(&s.kind));
    }
}

fn reason(kind: &SkipKind) -> String {
    match kind {
        SkipKind::Link => {
            "is a symbolic link; links are never followed, so commit the file itself in its place".to_string()
        }
        SkipKind::OtherName => "is not a result file: result files end in \".json\", and the only other files a \
                                results folder holds are README.md and exclusions.toml at its top"
            .to_string(),
        SkipKind::NotPlain => {
            "is neither a plain file nor a folder; a results folder holds only result files (*.json)".to_string()
        }
        SkipKind::Unreadable(e) => format!("cannot be read: {e}"),
    }
}

/// The reason of `Checked::refuse_empty_folders`'s problems.
const EMPTY_FOLDER: &str = "holds no result file (*.json): nothing was checked";

impl<R> Checked<R> {
    /// Makes each folder checked that holds no result file a problem (on
    /// the folder, at `$`). `site check` calls it: a gate that checked
    /// nothing must not pass, whether it was given the wrong folder or a
    /// new provider's folder before its first result. `site build` and
    /// `site serve` do not: a site with no results is still a site.
    pub fn refuse_empty_folders(&mut self) {
        for folder in &self.empty_folders {
            self.problems.push(Problem {
                file: folder.display().to_string(),
                field: "$".to_string(),
                reason: EMPTY_FOLDER.to_string(),
            });
        }
    }
}

/// The text of a problem's file, to find the line of its JSON path, where
/// it is a plain file (never through a link, nor a FIFO that would block)
/// within the size limit.
pub(super) fn text_to_locate(file: &str) -> Option<String> {
    let meta = std::fs::symlink_metadata(Path::new(file)).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read_to_string(file).ok()
}
