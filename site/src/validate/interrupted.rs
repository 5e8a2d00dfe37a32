//! A run the collector recorded as interrupted by a signal (its notice
//! begins with `INTERRUPTED_NOTICE`, its stage is the stage interrupted) is
//! incomplete: the stage interrupted and every stage after it are missing
//! samples, and a run interrupted at a stage's last sample or between stages
//! has no shortfall left to show it. Like any shortfall, it is accepted only
//! where a job that measures that stage ended without success
//! (`provenance.jobs`, a cancelled job of a split run); then it is a note.

use runner_bench_format::measured::{INTERRUPTED_NOTICE, JobOutcome, MeasuredResult};

use super::findings::{Collector, Note, because};

pub(super) fn rules(c: &mut Collector, file: &str, m: &MeasuredResult) -> Vec<Note> {
    let mut notes = Vec::new();
    for (i, notice) in m.notices.iter().enumerate() {
        if !notice.message.as_str().starts_with(INTERRUPTED_NOTICE) {
            continue;
        }
        let field = format!("$.notices[{i}]");
        let stage = notice.stage.as_str();
        let jobs: Vec<&JobOutcome> = m.provenance.jobs.iter().filter(|j| j.explains(stage, None)).collect();
        if jobs.is_empty() {
            c.push(
                file,
                field,
                format!(
                    "the collector recorded that a signal interrupted the run (stage \"{stage}\"), so the stage and \
                     every stage after it are incomplete; no job in provenance.jobs that measures \"{stage}\" ended \
                     without success to explain it; an interrupted run is not accepted: run the collector again to \
                     the end"
                ),
            );
        } else {
            notes.push(Note {
                field,
                reason: format!("interrupted by a signal (stage \"{stage}\"); {}", because(&jobs)),
            });
        }
    }
    notes
}
