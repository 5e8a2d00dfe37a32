//! What the stages and commands need from the OS and the CI job around
//! them: thread affinity (`affinity`), the machine and OS instance
//! (`machine`), a child process's CPU time (`cputime`), temporary files removed on an
//! interruption (`cleanup`), deadlines for calls that may hang
//! (`watchdog`), and progress for people (`progress`). Nothing here knows
//! of a stage or a command.

pub mod affinity;
pub mod cleanup;
pub mod cputime;
pub mod machine;
pub mod progress;
pub mod watchdog;
