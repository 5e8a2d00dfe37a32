//! A runner page's "Who measured each result" section: each measured
//! result's run as its run record names it (`model::run`), with who
//! measured it and each measuring job's queue time as GitHub reported it,
//! and which results have no record (self-built: not attested).
//!
//! Every text from a result goes through `Html::text`.

use super::html::Html;
use super::runner_tables::HistoryRow;
use crate::model::run::NO_RUN_RECORD;

/// The section, from the page's rows (newest first) and the GitHub owners
/// that the provider's file lists as running its benchmarks; empty where
/// the runner has no measured result.
pub(super) fn render(rows: &[HistoryRow<'_>], organisations: &[String]) -> String {
    let measured: Vec<&HistoryRow<'_>> = rows.iter().filter(|r| !r.meta.imported).collect();
    if measured.is_empty() {
        return String::new();
    }
    let mut h = Html::with_capacity(2_048 + measured.len() * 1_024);
    h.raw("\n<h2 id=\"runs\">Who measured each result</h2>\n<p>A measured result's run record is GitHub's list of its run's jobs, which the benchmark workflow's signing job reads from GitHub's API, not from the runner. “Measured by” names the owner of the repository whose run measured the result, “measured by the provider” where the provider's file lists that owner among the organisations that run its benchmarks. The site cannot check an attestation itself: it trusts that a merged result with a run record passed the results check, which fails one that a listed signer did not attest for that run. Queued is each job's <code>started_at − created_at</code> as GitHub reported it, ran its <code>completed_at − started_at</code> (<a href=\"/methodology/#measured-by\">methodology</a>).</p>");
    let mut without = Vec::new();
    for r in measured {
        let Some(run) = r.run else {
            without.push(r);
            continue;
        };
        h.raw("\n<div class=\"scroll\"><table id=\"t-run-").text(&r.anchor).raw("\">\n<caption><a href=\"#");
        h.text(&r.anchor).raw("\">").text(&r.meta.date).raw("</a>: measured by <a href=\"https://github.com/");
        h.text(&run.owner).raw("\">").text(&run.owner).raw("</a>");
        if organisations.iter().any(|o| o.eq_ignore_ascii_case(&run.owner)) {
            h.raw(", measured by the provider");
        }
        h.raw(", in <a href=\"").text(&run.url).raw("\">run ").text(&run.run_id.to_string());
        h.raw(" attempt ").text(&run.attempt.to_string()).raw("</a> of ").text(&run.repository);
        h.raw("</caption>\n<thead><tr><th scope=\"col\">Job</th><th scope=\"col\">Runner</th><th scope=\"col\" class=\"num\">Queued</th><th scope=\"col\" class=\"num\">Ran</th></tr></thead>\n<tbody>");
        for j in &run.jobs {
            h.raw("\n<tr>").cells(false, &[&j.job, &j.runner]).cells(true, &[&j.queued, &j.ran]).raw("</tr>");
        }
        h.raw("\n</tbody></table></div>");
    }
    if !without.is_empty() {
        h.raw("\n<p id=\"runs-unrecorded\"><span class=\"mark self-built\">self-built</span> ").text(NO_RUN_RECORD);
        h.raw(": ");
        for (n, r) in without.iter().enumerate() {
            if n > 0 {
                h.raw(", ");
            }
            h.raw("<a href=\"#").text(&r.anchor).raw("\">").text(&r.meta.date).raw("</a>");
        }
        h.raw(".</p>");
    }
    h.into_string()
}
