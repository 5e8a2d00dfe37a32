//! Memory a build hands back to the OS between its stages.

/// Hands memory that was freed back to the OS. The results were parsed on
/// worker threads, whose malloc arenas keep the freed space for themselves,
/// while the pages are rendered on this thread: without this, a build's peak
/// memory is the results plus the pages instead of the larger of the two.
/// The `site` binary allocates with jemalloc (src/main.rs), which hands
/// freed pages back at once; there this finds glibc's heap empty.
pub(super) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of every arena to the OS.
    unsafe {
        libc::malloc_trim(0);
    }
}
