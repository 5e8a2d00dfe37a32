//! One module per subcommand, each with one `run`.

pub mod args;
pub mod build;
pub mod check;
pub mod import;
pub mod serve;

/// Prints `err` once, with its chain of causes, its control characters
/// escaped (`escape`), and returns the exit status, 1. An error from writing
/// to a pipe whose reader has gone (`site check | head -1`) is not one: the
/// reader has all it wanted, so the command ends without a word, as a
/// program killed by SIGPIPE would, but with status 0, as ripgrep does.
pub fn fail(err: &anyhow::Error) -> u8 {
    let closed_pipe = err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if closed_pipe {
        return 0;
    }
    eprintln!("error: {}", crate::escape::lines(&format!("{err:#}")));
    1
}
