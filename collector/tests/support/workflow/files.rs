//! The runner's file commands: GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and
//! GITHUB_STEP_SUMMARY, fresh (empty) files for every step, read after it
//! as GitHub's runner reads them (actions/runner, FileCommandManager.cs).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The four files of one step.
pub(crate) struct StepFiles {
    pub(crate) output: PathBuf,
    pub(crate) env: PathBuf,
    pub(crate) path: PathBuf,
    pub(crate) summary: PathBuf,
}

/// What a step left in its files.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Commands {
    pub(crate) outputs: Vec<(String, String)>,
    pub(crate) env: Vec<(String, String)>,
    /// Folders to put before PATH for the later steps, in the order written.
    pub(crate) path: Vec<String>,
    pub(crate) summary: String,
}

impl StepFiles {
    /// Creates the empty files of step `index` in `dir`.
    pub(crate) fn create(dir: &Path, index: usize) -> anyhow::Result<StepFiles> {
        let file = |kind: &str| -> anyhow::Result<PathBuf> {
            let p = dir.join(format!("{kind}_{index}"));
            std::fs::write(&p, "").with_context(|| format!("cannot create {}", p.display()))?;
            Ok(p)
        };
        Ok(StepFiles {
            output: file("set_output")?,
            env: file("set_env")?,
            path: file("add_path")?,
            summary: file("step_summary")?,
        })
    }

    /// The variables that name the files, as the runner sets them.
    pub(crate) fn vars(&self) -> [(&'static str, String); 4] {
        [
            ("GITHUB_OUTPUT", self.output.display().to_string()),
            ("GITHUB_ENV", self.env.display().to_string()),
            ("GITHUB_PATH", self.path.display().to_string()),
            ("GITHUB_STEP_SUMMARY", self.summary.display().to_string()),
        ]
    }

    /// Reads the files after the step.
    pub(crate) fn read(&self) -> anyhow::Result<Commands> {
        let read = |p: &Path| std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()));
        Ok(Commands {
            outputs: parse_pairs(&read(&self.output)?).context("GITHUB_OUTPUT")?,
            env: parse_pairs(&read(&self.env)?).context("GITHUB_ENV")?,
            path: read(&self.path)?.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect(),
            summary: read(&self.summary)?,
        })
    }
}

/// `name=value` lines and `name<<DELIMITER` blocks, whose value is every
/// line up to the one that is the delimiter, joined with newlines.
pub(crate) fn parse_pairs(text: &str) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        let heredoc = line.find("<<").filter(|&i| line.find('=').is_none_or(|e| i < e));
        if let Some(i) = heredoc {
            let (name, delimiter) = (&line[..i], &line[i + 2..]);
            if name.is_empty() || delimiter.is_empty() {
                bail!("invalid line {line:?}: a name and a delimiter are required");
            }
            let mut value = Vec::new();
            loop {
                match lines.next() {
                    Some(l) if l == delimiter => break,
                    Some(l) => value.push(l),
                    None => bail!("matching delimiter {delimiter:?} of {name} not found"),
                }
            }
            out.push((name.to_string(), value.join("\n")));
        } else if let Some((name, value)) = line.split_once('=') {
            if name.is_empty() {
                bail!("invalid line {line:?}: the name is empty");
            }
            out.push((name.to_string(), value.to_string()));
        } else {
            bail!("invalid line {line:?}: neither name=value nor name<<DELIMITER");
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(n: &str, v: &str) -> (String, String) {
        (n.to_string(), v.to_string())
    }

    #[test]
    fn lines_and_blocks() {
        let text = "path=/tmp/x=y\r\nbody<<EOF\nline 1\n\nline=3\nEOF\nempty=\n";
        assert_eq!(
            parse_pairs(text).unwrap(),
            [pair("path", "/tmp/x=y"), pair("body", "line 1\n\nline=3"), pair("empty", "")]
        );
    }

    #[test]
    fn broken_files_are_errors() {
        assert_eq!(parse_pairs("a<<EOF\nx\n").unwrap_err().to_string(), "matching delimiter \"EOF\" of a not found");
        assert_eq!(
            parse_pairs("just text\n").unwrap_err().to_string(),
            "invalid line \"just text\": neither name=value nor name<<DELIMITER"
        );
        assert_eq!(parse_pairs("=v\n").unwrap_err().to_string(), "invalid line \"=v\": the name is empty");
    }
}
