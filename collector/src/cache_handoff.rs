//! The restore side of the cache stage's hand-off file, shared by both
//! methods' restore commands (`cache restore`, `cache wait` and `cache
//! prepare restore`): reading it back checked, refusing the OS instance that
//! saved, and waiting the publication gap.

use std::time::Duration;

use anyhow::bail;
use runner_bench_format::measured::Instance;
use runner_bench_format::{Message, Name, Notice, Parameters, Profile, Timestamp};

use crate::stage::cache::handoff::Handoff;

/// Refuses to restore on the OS instance that saved; where that cannot be
/// told (an unknown id equals nothing; see `Instance::same_as`), adds a
/// notice.
pub fn check_other_instance(instance: &Instance, saved: &Instance, notices: &mut Vec<Notice>) -> anyhow::Result<()> {
    match instance.same_as(saved) {
        Some(true) => bail!(
            "refusing to restore on the OS instance that saved (boot id {}, machine id {}): the restore must run in a \
             later job on another runner, or the restore would read the save's local files and caches",
            instance.boot_id,
            instance.machine_id
        ),
        Some(false) => {}
        None => notices.push(Notice {
            stage: Name::lossy("cache"),
            message: Message::lossy(
                "the save's and this restore's OS instances cannot be told apart (an id is unknown on one side and no \
             known id differs): the restore could not be checked to run on another OS instance than the save",
            ),
        }),
    }
    Ok(())
}

/// The hand-off file and the parameters of the profile it was saved with,
/// checked to be this collector's.
pub fn read_handoff(path: &std::path::Path) -> anyhow::Result<(Handoff, Parameters)> {
    let h = Handoff::read(path)?;
    let Some(profile) = Profile::from_name(&h.profile) else {
        bail!("{}: unknown profile {:?}", path.display(), h.profile);
    };
    let params = profile.parameters();
    if params.fingerprint() != h.fingerprint {
        bail!(
            "{}: saved with profile fingerprint {} but this collector's {} profile is {}; use the same collector in both jobs",
            path.display(),
            h.fingerprint,
            h.profile,
            params.fingerprint()
        );
    }
    if !(1..=params.cache_trials).contains(&h.trial) {
        bail!("{}: trial: trial {} is outside 1 to {}", path.display(), h.trial, params.cache_trials);
    }
    Ok((h, params))
}

/// Time since `t`, zero if `t` is in the future.
pub fn since(t: &Timestamp) -> Duration {
    let now = jiff::Timestamp::now();
    Duration::try_from(now.duration_since(t.instant())).unwrap_or_default()
}

/// Sleeps what is left of the profile's publication gap, counted from the
/// end of the save job's last transfer.
pub fn wait_gap(h: &Handoff, params: &Parameters) {
    let gap = Duration::from_secs(u64::from(params.cache_publication_gap_s));
    let waited = since(&h.saved_at);
    if waited < gap {
        say!("waiting {:.0} s of the {} s publication gap", (gap - waited).as_secs_f64(), gap.as_secs());
        std::thread::sleep(gap - waited);
    } else {
        say!("{:.0} s of the {} s publication gap have passed already", waited.as_secs_f64(), gap.as_secs());
    }
}
