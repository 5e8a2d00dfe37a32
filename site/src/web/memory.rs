//! Memory a build hands back to the OS between its stages.
//!
//! The `site` binary allocates with jemalloc (src/main.rs), which starts
//! out handing freed pages back at once (`dirty_decay_ms:0`): the check's
//! parsed results are a build's peak, and freed parse buffers kept beside
//! them would add to it. After the provider reports (past the peak) a
//! build holds freed pages for reuse instead (`hold_free_memory`) and hands
//! them back at the end of each stage (`release_free_memory`): purging
//! every page as it was freed, then faulting a fresh one in for the next
//! value, made `site build` of 10,000 results 6 to 9 % slower
//! (docs/benchmarks.md, 4bf0f22). Where jemalloc is linked but not the
//! allocator (the library's tests) both touch only jemalloc's own, unused
//! arenas.

#[cfg(target_os = "linux")]
use std::ffi::{CStr, CString, c_void};

/// Freed pages stay with the allocator until `release_free_memory`.
pub(super) fn hold_free_memory() {
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
        let mut names = vec![c"arenas.dirty_decay_ms".to_owned(), c"arenas.muzzy_decay_ms".to_owned()];
        for i in 0..narenas {
            for kind in ["dirty", "muzzy"] {
                names.extend(CString::new(format!("arena.{i}.{kind}_decay_ms")));
            }
        }
        for name in &names {
            set_decay_ms(name, -1);
        }
    }
}

/// Writes a decay time (an `ssize_t`; -1: never) to the control `name`.
#[cfg(target_os = "linux")]
fn set_decay_ms(name: &CStr, mut ms: isize) {
    // SAFETY: the decay controls take an ssize_t, `ms`, of the size given.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            name.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            (&raw mut ms).cast::<c_void>(),
            size_of::<isize>(),
        );
    }
}

/// Hands memory that was freed back to the OS. The results were parsed on
/// worker threads, and freed results lie between live ones, where new
/// values seldom fit: without this, a build's peak memory is the results
/// plus the pages instead of the larger of the two. With glibc's malloc,
/// `malloc_trim` does the same.
pub(super) fn release_free_memory() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: "arena.4096.purge" (4096: jemalloc's MALLCTL_ARENAS_ALL,
        // every arena) reads and writes nothing; it returns the arenas'
        // unused dirty pages to the OS.
        unsafe {
            tikv_jemalloc_sys::mallctl(
                c"arena.4096.purge".as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            );
        }
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of every arena to the OS.
    unsafe {
        libc::malloc_trim(0);
    }
}
