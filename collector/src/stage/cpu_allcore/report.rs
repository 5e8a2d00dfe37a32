//! What the all-core program (vendor/coremark/allcore_main.c) reports: one
//! line per context, then one for the run, read strictly; anything else
//! fails the sample with what is wrong.

use runner_bench_format::measured::SeenCpu;

use crate::stage::cpu::coremark::Crcs;
use crate::stage::cpu::process::{count_of, crcs_of, fields, optional_seconds_of, quoted, seconds_of};

const WHO: &str = "the all-core workload";

/// One context's line.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextReport {
    pub iterations: u64,
    /// From the start of the run's clock to this context's end.
    pub seconds: f64,
    /// Its thread's CPU time, where the OS said.
    pub cpu_seconds: Option<f64>,
    pub first_cpu: Option<SeenCpu>,
    pub last_cpu: Option<SeenCpu>,
    pub crcs: Crcs,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub contexts: Vec<ContextReport>,
    /// The iterations every context was to run.
    pub iterations: u64,
    /// From before the first thread started to after the last was joined.
    pub seconds: f64,
    /// The validation run's CRCs.
    pub validation: Crcs,
}

/// Reads the program's output for a run of `contexts` contexts: lines
/// `context=K iterations=N seconds=E cpu_seconds=C first_cpu=G:P
/// last_cpu=G:P crcs=…` for K = 0, 1, … in order, then `contexts=N
/// iterations=I seconds=S validation_crcs=…`; every line ends with `\n`
/// (or `\r\n`, Windows' text mode).
pub fn parse(stdout: &str, contexts: u32) -> Result<Report, String> {
    if stdout.is_empty() {
        return Err(format!("{WHO} printed nothing"));
    }
    let Some(body) = stdout.strip_suffix('\n') else {
        return Err(format!("{WHO}'s output does not end with a line's end: {}", quoted(stdout)));
    };
    let lines: Vec<&str> = body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let want = contexts as usize + 1;
    if lines.len() != want {
        return Err(format!("{WHO} printed {} lines, not {want} (one per context and one for the run)", lines.len()));
    }
    let (last, per_context) = lines.split_last().expect("at least one line");
    let at = |k: usize, e: String| format!("line {}: {e}", k + 1);
    let contexts = per_context
        .iter()
        .enumerate()
        .map(|(k, line)| context_line(k, line).map_err(|e| at(k, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let [n, iterations, seconds, validation] =
        fields(WHO, last, ["contexts", "iterations", "seconds", "validation_crcs"]).map_err(|e| at(want - 1, e))?;
    let summary = || -> Result<Report, String> {
        if n.parse::<usize>().ok() != Some(contexts.len()) {
            return Err(format!("{WHO} says it ran {} contexts, not {}", quoted(n), contexts.len()));
        }
        Ok(Report {
            iterations: count_of(WHO, "iterations", iterations)?,
            seconds: seconds_of(WHO, "seconds", seconds)?,
            validation: crcs_of(WHO, "validation_crcs", validation)?,
            contexts: contexts.clone(),
        })
    };
    summary().map_err(|e| at(want - 1, e))
}

fn context_line(k: usize, line: &str) -> Result<ContextReport, String> {
    let [index, iterations, seconds, cpu_seconds, first, last, crcs] =
        fields(WHO, line, ["context", "iterations", "seconds", "cpu_seconds", "first_cpu", "last_cpu", "crcs"])?;
    if index != k.to_string() {
        return Err(format!("{WHO}'s context is {}, expected {k}", quoted(index)));
    }
    Ok(ContextReport {
        iterations: count_of(WHO, "iterations", iterations)?,
        seconds: seconds_of(WHO, "seconds", seconds)?,
        cpu_seconds: optional_seconds_of(WHO, "cpu_seconds", cpu_seconds)?,
        first_cpu: seen_cpu("first_cpu", first)?,
        last_cpu: seen_cpu("last_cpu", last)?,
        crcs: crcs_of(WHO, "crcs", crcs)?,
    })
}

/// `G:P` (processor group, CPU within it), or `-` where the OS did not say.
fn seen_cpu(name: &str, value: &str) -> Result<Option<SeenCpu>, String> {
    if value == "-" {
        return Ok(None);
    }
    let number = |v: &str| v.parse::<u32>().ok().filter(|_| v.bytes().all(|b| b.is_ascii_digit()));
    match value.split_once(':').map(|(g, p)| (number(g), number(p))) {
        Some((Some(group), Some(cpu))) => Ok(Some(SeenCpu { cpu, group })),
        _ => Err(format!("{WHO}'s {name} is not GROUP:CPU or -: {}", quoted(value))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "\
context=0 iterations=500 seconds=0.400000000 cpu_seconds=0.390000000 first_cpu=0:1 last_cpu=0:0 \
crcs=0xe9f5,0xe714,0x1fd7,0x8e3a,0x1234
context=1 iterations=500 seconds=0.500000000 cpu_seconds=- first_cpu=- last_cpu=1:63 \
crcs=0xe9f5,0xe714,0x1fd7,0x8e3a,0x1234
contexts=2 iterations=500 seconds=0.500100000 validation_crcs=0x18f2,0xe3c1,0x0747,0x8d84,0xe3c1
";

    #[test]
    fn every_line_is_read_field_by_field() {
        let r = parse(GOOD, 2).unwrap();
        assert_eq!((r.iterations, r.seconds, r.contexts.len()), (500, 0.5001, 2));
        assert_eq!(r.validation, Crcs { seed: 0x18f2, list: 0xe3c1, matrix: 0x0747, state: 0x8d84, final_: 0xe3c1 });
        let [a, b] = &r.contexts[..] else { unreachable!() };
        assert_eq!((a.iterations, a.seconds, a.cpu_seconds), (500, 0.4, Some(0.39)));
        assert_eq!((a.first_cpu, a.last_cpu), (Some(SeenCpu { cpu: 1, group: 0 }), Some(SeenCpu { cpu: 0, group: 0 })));
        assert_eq!((b.cpu_seconds, b.first_cpu, b.last_cpu), (None, None, Some(SeenCpu { cpu: 63, group: 1 })));
        assert_eq!(b.crcs.final_, 0x1234);
        // Windows counts a thread's CPU time in ticks of 15.6 ms: a short
        // context may have used none.
        let no_tick = parse(&GOOD.replace("cpu_seconds=0.390000000", "cpu_seconds=0.000000000"), 2).unwrap();
        assert_eq!(no_tick.contexts[0].cpu_seconds, Some(0.0));
        // Windows' C runtime ends a text-mode line with \r\n.
        assert_eq!(parse(&GOOD.replace('\n', "\r\n"), 2).unwrap(), r);
    }

    #[test]
    fn a_malformed_report_is_refused_with_what_is_wrong() {
        let replaced = |from: &str, to: &str| parse(&GOOD.replace(from, to), 2).unwrap_err();
        let cases = [
            (parse("", 2).unwrap_err(), "the all-core workload printed nothing".to_string()),
            (
                parse(GOOD.trim_end(), 2).unwrap_err(),
                format!("the all-core workload's output does not end with a line's end: {:?}…", &GOOD[..160]),
            ),
            (
                parse(GOOD, 3).unwrap_err(),
                "the all-core workload printed 3 lines, not 4 (one per context and one for the run)".to_string(),
            ),
            (
                replaced("context=1 ", "context=2 "),
                r#"line 2: the all-core workload's context is "2", expected 1"#.to_string(),
            ),
            (
                replaced("first_cpu=0:1", "first_cpu=0:x"),
                r#"line 1: the all-core workload's first_cpu is not GROUP:CPU or -: "0:x""#.to_string(),
            ),
            (
                replaced("last_cpu=1:63", "last_cpu=63"),
                r#"line 2: the all-core workload's last_cpu is not GROUP:CPU or -: "63""#.to_string(),
            ),
            (
                replaced("contexts=2", "contexts=3"),
                r#"line 3: the all-core workload says it ran "3" contexts, not 2"#.to_string(),
            ),
            (
                replaced("seconds=0.500100000", "seconds=0"),
                r#"line 3: the all-core workload's seconds are not a positive number of seconds: "0""#.to_string(),
            ),
            (
                replaced(" cpu_seconds=-", ""),
                format!(
                    "line 2: the all-core workload's line has 6 fields, not 7: {:?}",
                    "context=1 iterations=500 seconds=0.500000000 first_cpu=- last_cpu=1:63 \
                     crcs=0xe9f5,0xe714,0x1fd7,0x8e3a,0x1234"
                ),
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
