//! `site`: see `site --help`.

/// jemalloc rather than glibc's malloc: `site build` allocates and frees
/// millions of small values, and glibc's malloc, free and consolidation took
/// about a fifth of its CPU time (docs/benchmarks.md, issue 18).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read before `main`: freed pages go back to the OS at
/// once, not after jemalloc's default 10 s, so that the peak memory stays
/// what the process holds, as `malloc_trim` keeps it with glibc
/// (docs/benchmarks.md: a build's peak is a target). `site build` and
/// `site serve` change this for their check and stages
/// (src/web/memory.rs); `site check` holds little (a verdict per file), and
/// keeping freed pages made it no faster.
#[cfg(target_os = "linux")]
#[unsafe(export_name = "_rjem_malloc_conf")]
static MALLOC_CONF: &[u8; 34] = b"dirty_decay_ms:0,muzzy_decay_ms:0\0";

fn main() -> std::process::ExitCode {
    site::cli::main()
}
