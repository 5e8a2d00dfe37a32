//! One module per subcommand, each with one `run`.

pub mod build;
pub mod check;
pub mod import;
pub mod serve;
