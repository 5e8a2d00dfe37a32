//! What the walk of a results folder finds besides result files (issue 13,
//! class 7): a link, a file of another name, a FIFO or an entry the walk
//! cannot read is a problem of its own, never passed over in silence, so
//! that `site check results/` cannot accept a folder while files in it
//! went unread. A folder with no result file at all is refused by
//! `site check` (`Checked::refuse_empty_folders`).

use super::findings::Collector;
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
