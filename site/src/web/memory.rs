//! Memory a build hands back to the OS between its steps.
//!
//! The `site` binary allocates with jemalloc (src/main.rs), which starts
//! out handing freed pages back at once (`dirty_decay_ms:0`). `site build`
//! holds freed pages for reuse instead (`hold_free_memory`), from its
//! check on (`output::build`: each thread's next parse reuses the pages of
//! the result it let go of), and hands them back at the end of the check
//! and of each step (`release_free_memory`): purging every page as it was
//! freed, then faulting a fresh one in for the next value, made the build
//! slower (docs/benchmarks.md). `site serve` keeps what it parsed and made
//! between rebuilds, so its peak is the first build's: its builds keep
//! freed pages for jemalloc's default decay time (`keep_free_memory`), so
//! that the next rebuild reuses them instead of faulting in and zeroing
//! fresh ones. Where jemalloc is linked but not the allocator (the
//! library's tests) both touch only jemalloc's own, unused arenas.

#[cfg(target_os = "linux")]
use std::ffi::{CStr, CString, c_void};

/// Freed pages stay with the allocator until `release_free_memory`.
pub(crate) fn hold_free_memory() {
    set_decay_ms(-1);
}

/// How long `site serve`'s rebuilds keep freed pages: jemalloc's default.
const SERVE_DECAY_MS: isize = 10_000;

/// Freed pages go back to the OS over `SERVE_DECAY_MS`, not at once.
pub(crate) fn keep_free_memory() {
    set_decay_ms(SERVE_DECAY_MS);
}

/// Sets how long jemalloc keeps freed pages, in ms (-1: until purged).
fn set_decay_ms(decay_ms: isize) {
    #[cfg(not(target_os = "linux"))]
    let _ = decay_ms;
    #[cfg(target_os = "linux")]
    {
        let mut narenas: u32 = 0;
        let mut len = size_of::<u32>();
        // SAFETY: "arenas.narenas" reads an unsigned int into `narenas`,
        // whose size `len` gives.
        let read = unsafe {
            tikv_jemalloc_sys::mallctl(
                c"arenas.narenas".as_ptr(),
                (&raw mut narenas).cast::<c_void>(),
                &raw mut len,
                std::ptr::null_mut(),
                0,
            )
        };
        if read != 0 {
            return;
        }
        // Arenas made from now on, then each one that exists (one that is
        // not yet initialized refuses, and gets the new default when it is).
        for kind in ["dirty", "muzzy"] {
            let arenas = std::iter::once(format!("arenas.{kind}_decay_ms"))
                .chain((0..narenas).map(|i| format!("arena.{i}.{kind}_decay_ms")));
            for name in arenas.filter_map(|n| CString::new(n).ok()) {
                write_ctl(&name, &decay_ms);
            }
        }
    }
}

/// Writes `value` to jemalloc's control `name` (a decay time is an
/// `ssize_t`; `()` for a control that takes nothing).
#[cfg(target_os = "linux")]
fn write_ctl<T>(name: &CStr, value: &T) {
    let (new, len) = match size_of::<T>() {
        0 => (std::ptr::null_mut(), 0),
        n => (std::ptr::from_ref(value).cast_mut().cast::<c_void>(), n),
    };
    // SAFETY: the control reads `len` bytes of `value` (the type it
    // takes, as the callers pass it) or, with nothing to read, none;
    // nothing is written back.
    unsafe {
        tikv_jemalloc_sys::mallctl(name.as_ptr(), std::ptr::null_mut(), std::ptr::null_mut(), new, len);
    }
}

/// Hands memory that was freed back to the OS. The results were parsed on
/// worker threads, and freed results lie between live ones, where new
/// values seldom fit: without this, a build's peak memory is the results
/// plus the pages instead of the larger of the two. With glibc's malloc,
/// `malloc_trim` does the same.
pub(crate) fn release_free_memory() {
    // 4096: jemalloc's MALLCTL_ARENAS_ALL, every arena; the purge returns
    // their unused dirty pages to the OS.
    #[cfg(target_os = "linux")]
    write_ctl(c"arena.4096.purge", &());
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of every arena to the OS.
    unsafe {
        libc::malloc_trim(0);
    }
}
