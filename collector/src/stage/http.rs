//! The async HTTP client that the stages' timed transfers share: reqwest's
//! async client driven on the calling thread by a current-thread tokio
//! runtime. reqwest's blocking client runs its own runtime on another
//! thread and hands every body chunk across (8 KiB at a time for a request
//! body); on one pinned CPU, or two shared with the server, each hand-off
//! costs a context switch that the measured tool does not pay.

use std::io;
use std::time::Duration;

/// The User-Agent of every request the collector makes.
pub const USER_AGENT: &str = concat!("runner-bench-collector/", env!("CARGO_PKG_VERSION"));

/// A runtime that runs the transfers on the thread that calls `block_on`.
pub fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}

/// An async client builder with the settings every transfer shares: the
/// collector's User-Agent, a total timeout per request, and no redirects
/// (a redirect would move bytes the figure does not name).
pub fn client_builder(timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder().user_agent(USER_AGENT).timeout(timeout).redirect(reqwest::redirect::Policy::none())
}
