//! Where the run happened: GitHub Actions provenance from the GITHUB_*
//! variables and the runner image from ImageOS and ImageVersion. Nothing is
//! guessed: outside Actions these sections are simply absent.

use anyhow::{Context, bail};
use runner_bench_format::Name;
use runner_bench_format::measured::{GitHubRun, Image};

/// Reads variables through `var`, so tests need not touch the process env.
pub fn github(var: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Option<GitHubRun>> {
    if var("GITHUB_ACTIONS").as_deref() != Some("true") {
        return Ok(None);
    }
    let get = |key: &str| -> anyhow::Result<String> {
        match var(key) {
            Some(v) if !v.is_empty() => Ok(v),
            _ => bail!("GITHUB_ACTIONS is true but {key} is not set; run the collector as a step of a workflow job"),
        }
    };
    let name = |key: &str| -> anyhow::Result<Name> { Name::new(get(key)?).map_err(|e| anyhow::anyhow!("{key}: {e}")) };
    Ok(Some(GitHubRun {
        repository: name("GITHUB_REPOSITORY")?,
        workflow: name("GITHUB_WORKFLOW")?,
        run_id: get("GITHUB_RUN_ID")?.parse().context("GITHUB_RUN_ID is not a number")?,
        run_attempt: get("GITHUB_RUN_ATTEMPT")?.parse().context("GITHUB_RUN_ATTEMPT is not a number")?,
        job: name("GITHUB_JOB")?,
        commit: name("GITHUB_SHA")?,
        runner_name: var("RUNNER_NAME").map(|v| Name::lossy(&v)),
    }))
}

/// GitHub's runner images name themselves in ImageOS and ImageVersion.
pub fn image(var: &dyn Fn(&str) -> Option<String>) -> Option<Image> {
    Some(Image { name: Name::lossy(&var("ImageOS")?), version: Name::lossy(&var("ImageVersion")?) })
}

/// The process environment, for `github` and `image`.
pub fn process_env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let owned: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |key| owned.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    #[test]
    fn reads_actions_provenance() {
        let vars = env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REPOSITORY", "o/r"),
            ("GITHUB_WORKFLOW", "bench"),
            ("GITHUB_RUN_ID", "42"),
            ("GITHUB_RUN_ATTEMPT", "2"),
            ("GITHUB_JOB", "measure"),
            ("GITHUB_SHA", "abc"),
            ("ImageOS", "ubuntu24"),
            ("ImageVersion", "20261116.1.0"),
        ]);
        let gh = github(&vars).unwrap().unwrap();
        assert_eq!((gh.run_id, gh.run_attempt, gh.job.as_str()), (42, 2, "measure"));
        assert_eq!(gh.runner_name, None);
        assert_eq!(image(&vars).unwrap().version.as_str(), "20261116.1.0");
    }

    #[test]
    fn outside_actions_there_is_none() {
        assert_eq!(github(&env(&[])).unwrap(), None);
        assert_eq!(image(&env(&[("ImageOS", "x")])), None);
    }

    #[test]
    fn a_missing_variable_is_named() {
        let err = github(&env(&[("GITHUB_ACTIONS", "true")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "GITHUB_ACTIONS is true but GITHUB_REPOSITORY is not set; run the collector as a step of a workflow job"
        );
    }
}
