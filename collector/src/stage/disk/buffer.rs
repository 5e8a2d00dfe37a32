//! The buffer every call reads into or writes from, aligned for direct I/O,
//! and what changes in it before each write.

use super::ALIGN;
use crate::rng::SplitMix64;

/// A buffer aligned for direct I/O.
///
/// On Unix it is a mapping of its own, fresh zeroed pages from the kernel,
/// as fio's buffer is: fio allocates it once per job, in a new process
/// (its 1 MiB buffer above glibc's mmap threshold). A buffer from the allocator's
/// heap reuses pages that earlier allocations freed, and with it 1 MiB
/// direct writes were slower on the development VM's virtio disk: a
/// median call of 251–252 µs against 186–197 µs (fio's: 196 µs), in two
/// interleaved pairs of runs (docs/benchmarks.md). Why is not known; how
/// many physically separate pieces a transfer is made of depends on which
/// pages the buffer has.
pub struct AlignedBuf {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

impl AlignedBuf {
    pub fn new(len: usize) -> Self {
        let len = len.max(ALIGN);
        AlignedBuf { ptr: map(len), len }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised (zeroed at first) bytes while self lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        unmap(self.ptr, self.len);
    }
}

/// `len` bytes of fresh zeroed pages, page-aligned (a page is at least
/// `ALIGN`).
#[cfg(unix)]
fn map(len: usize) -> std::ptr::NonNull<u8> {
    // SAFETY: an anonymous private mapping of a non-zero length, no fd.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANON,
            -1,
            0,
        )
    };
    std::ptr::NonNull::new(raw.cast())
        .filter(|_| raw != libc::MAP_FAILED)
        .unwrap_or_else(|| std::alloc::handle_alloc_error(layout(len)))
}

#[cfg(unix)]
fn unmap(ptr: std::ptr::NonNull<u8>, len: usize) {
    // SAFETY: mapped by map() with this length, and not used after.
    unsafe { libc::munmap(ptr.as_ptr().cast(), len) };
}

#[cfg(not(unix))]
fn map(len: usize) -> std::ptr::NonNull<u8> {
    // SAFETY: the layout has a non-zero size.
    let raw = unsafe { std::alloc::alloc_zeroed(layout(len)) };
    std::ptr::NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout(len)))
}

#[cfg(not(unix))]
fn unmap(ptr: std::ptr::NonNull<u8>, len: usize) {
    // SAFETY: allocated in map() with this layout.
    unsafe { std::alloc::dealloc(ptr.as_ptr(), layout(len)) }
}

fn layout(len: usize) -> std::alloc::Layout {
    std::alloc::Layout::from_size_align(len, ALIGN).expect("valid layout")
}

/// Seeds the generator of what writes change (xored with the sample and
/// operation), apart from the file's and the offsets' seeds.
pub(super) const CONTENTS_SEED: u64 = 0x5c7a_3b1e_0000_0000;

/// The smallest block a device writes, and so what dedup can match on.
pub(super) const SECTOR: usize = 512;

/// Makes the buffer's next write unlike every earlier one, as fio does by
/// default. fio fills a write buffer with random bytes once and then, with
/// `scramble_buffers=1` (its default; `refill_buffers`, a full refill per
/// write, is off), before each write stores three 64-bit words in every
/// 512-byte sector: the offset at the start of one of the sector's eight
/// 64-byte lines, chosen per write, and the start time in bytes 48 to 63
/// (fio's io_u.c, `small_content_scramble`). This does the same with three
/// fresh outputs of the generator in place of the offset and time, so that
/// no sector of a write repeats one written before and storage that
/// deduplicates or compresses gains nothing over fio. It costs what fio's
/// scramble costs, two cache lines per 512 bytes: 13 µs per MiB on the
/// development VM (about 2 % of a 1 MiB write there, 0.03 µs per 4 KiB),
/// where refilling the whole buffer from the generator took 0.86 ms per
/// MiB, longer than the write itself, and is a cost fio does not pay.
pub(super) fn scramble(buf: &mut [u8], contents: &mut SplitMix64) {
    let line = (contents.next_u64() % 8) as usize * 64;
    for sector in buf.chunks_exact_mut(SECTOR) {
        contents.fill(&mut sector[line..line + 8]);
        contents.fill(&mut sector[48..64]);
    }
}
