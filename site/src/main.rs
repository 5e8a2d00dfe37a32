//! `site`: see `site --help`.

fn main() -> std::process::ExitCode {
    site::cli::main()
}
