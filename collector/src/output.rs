//! The result file: checked before anything is measured, then rewritten
//! atomically (temporary file in the same folder, fsync, rename) after every
//! sample, so a run killed at any point leaves a complete, valid file with
//! everything measured so far.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::error::UsageError;

pub struct ResultWriter {
    path: PathBuf,
    temp: PathBuf,
}

impl ResultWriter {
    /// Fails now, with a usage error, if the file could not be written later.
    pub fn create(path: &Path) -> Result<Self, UsageError> {
        let bad = |reason: String| UsageError::BadOutput { path: path.to_path_buf(), reason };
        if path.is_dir() {
            return Err(bad("is a folder; give a file path such as result.json".into()));
        }
        let Some(name) = path.file_name() else {
            return Err(bad("has no file name; give a file path such as result.json".into()));
        };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(bad(format!("the folder {} does not exist; create it first", dir.display())));
        }
        let mut temp_name = name.to_os_string();
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        File::create(&temp).map_err(|e| bad(format!("cannot write in {}: {e}", dir.display())))?;
        let _ = fs::remove_file(&temp);
        Ok(ResultWriter { path: path.to_path_buf(), temp })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stamps the result's end time and replaces the file with it.
    pub fn write_result(&self, result: &mut runner_bench_format::MeasuredResult) -> anyhow::Result<()> {
        result.provenance.finished_at = runner_bench_format::Timestamp::now();
        self.write(&runner_bench_format::to_json(result))
    }

    /// Replaces the file with `bytes`, atomically.
    pub fn write(&self, bytes: &[u8]) -> anyhow::Result<()> {
        let mut file = File::create(&self.temp).with_context(|| format!("cannot create {}", self.temp.display()))?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {}", self.temp.display()))?;
        fs::rename(&self.temp, &self.path)
            .with_context(|| format!("cannot move {} to {}", self.temp.display(), self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_bad_paths_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/folder/r.json");
        assert_eq!(
            ResultWriter::create(&missing).err().unwrap().to_string(),
            format!(
                "--out {}: the folder {} does not exist; create it first",
                missing.display(),
                dir.path().join("no/such/folder").display()
            )
        );
        assert_eq!(
            ResultWriter::create(dir.path()).err().unwrap().to_string(),
            format!("--out {}: is a folder; give a file path such as result.json", dir.path().display())
        );
    }

    #[test]
    fn writes_replace_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let w = ResultWriter::create(&path).unwrap();
        w.write(b"first, longer content").unwrap();
        w.write(b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left behind");
    }
}
