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
        // Not following a link: the rename that writes the file would
        // replace the link itself, or a device or pipe, with the result.
        match fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => return Err(bad("is a folder; give a file path such as result.json".into())),
            Ok(m) if !m.is_file() => {
                return Err(bad(
                    "is not a regular file (a link, a device or a pipe), which writing the result would replace; \
                     give the path of a file, or of none yet"
                        .into(),
                ));
            }
            _ => {}
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

    /// Refuses a second writer of the same file (`flag` names its flag):
    /// the later write would replace the first file's content.
    pub fn distinct_from(&self, other: &ResultWriter, flag: &'static str) -> Result<(), UsageError> {
        let canonical = |w: &ResultWriter| {
            let dir = w.temp.parent().and_then(|d| d.canonicalize().ok());
            dir.zip(w.path.file_name()).map(|(d, n)| d.join(n))
        };
        if canonical(self).is_some_and(|a| Some(a) == canonical(other)) {
            return Err(UsageError::InvalidValue {
                flag,
                reason: format!("{} is also the --out file; give each file its own path", self.path.display()),
            });
        }
        Ok(())
    }

    /// Stamps the result's end time and replaces the file with it.
    pub fn write_result(&self, result: &mut runner_bench_format::MeasuredResult) -> anyhow::Result<()> {
        result.provenance.finished_at = runner_bench_format::Timestamp::now();
        self.write(&runner_bench_format::to_json(result))
    }

    /// Replaces the file with `bytes`, atomically; a failed write leaves
    /// the last complete file and no temporary one.
    pub fn write(&self, bytes: &[u8]) -> anyhow::Result<()> {
        let written = (|| {
            let mut file =
                File::create(&self.temp).with_context(|| format!("cannot create {}", self.temp.display()))?;
            file.write_all(bytes)
                .and_then(|()| file.sync_all())
                .with_context(|| format!("cannot write {}", self.temp.display()))?;
            fs::rename(&self.temp, &self.path)
                .with_context(|| format!("cannot move {} to {}", self.temp.display(), self.path.display()))
        })();
        if written.is_err() {
            let _ = fs::remove_file(&self.temp);
        }
        written
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
        #[cfg(unix)]
        {
            let link = dir.path().join("link.json");
            std::os::unix::fs::symlink(dir.path().join("target.json"), &link).unwrap();
            for path in [link.as_path(), Path::new("/dev/null")] {
                assert_eq!(
                    ResultWriter::create(path).err().unwrap().to_string(),
                    format!(
                        "--out {}: is not a regular file (a link, a device or a pipe), which writing the result \
                         would replace; give the path of a file, or of none yet",
                        path.display()
                    )
                );
            }
        }
    }

    #[test]
    fn a_failed_write_keeps_the_last_file_and_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let w = ResultWriter::create(&path).unwrap();
        w.write(b"measured").unwrap();
        // The rename fails: a folder now stands where the file goes.
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        fs::write(path.join("x"), b"").unwrap();
        assert!(w.write(b"more").is_err());
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [std::ffi::OsString::from("r.json")], "no temporary file is left behind");
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
