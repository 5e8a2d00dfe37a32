//! The buffer every call reads into or writes from, aligned for direct I/O,
//! and what changes in it before each write.

use super::plan::ALIGN;
use crate::rng::SplitMix64;

/// A buffer aligned for direct I/O, and in one physically contiguous piece
/// where the OS can give it one.
///
/// How many physically separate pieces a transfer is made of decides what a
/// 1 MiB direct read or write costs on some virtual disks, more than the
/// disk does. On the development VM (Firecracker, virtio, 254 segments per
/// request at most) a fresh 1 MiB mapping of 4 KiB pages came in 29 to 256
/// separate pieces from one allocation to the next, and sequential reads ran
/// at 808 to 1,668 MiB/s with it, against 2,052 to 2,207 MiB/s from one
/// 2 MiB page, interleaved in one run (`scripts/disk-pages.sh`,
/// docs/benchmarks.md); fio's default buffer is such a lottery too. So on Linux
/// the buffer is a transparent huge page (`MADV_HUGEPAGE`, then
/// `MADV_COLLAPSE` where the first touch did not get one), one contiguous
/// piece on every run and runner where the kernel gives one, and the
/// sample records the page size it got (`page_kib`): where the kernel gives
/// none (transparent huge pages set to `never` or not built, a huge page
/// over `MAX_HUGE_BYTES`, or none free), base pages are used and the site
/// never ranks the two together. Elsewhere it is base pages.
pub struct AlignedBuf {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
    /// What was mapped (at least `len`), for unmapping.
    mapped: usize,
    page_kib: u32,
}

impl AlignedBuf {
    pub fn new(len: usize) -> Self {
        let len = len.max(ALIGN);
        let (ptr, mapped, page_kib) = map(len);
        AlignedBuf { ptr, len, mapped, page_kib }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised (zeroed at first) bytes while self lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// KiB per page of the memory behind the whole buffer: the huge page
    /// size where every byte of it is in huge pages, else the base page
    /// size (4 on x86-64).
    pub fn page_kib(&self) -> u32 {
        self.page_kib
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        unmap(self.ptr, self.mapped);
    }
}

/// The base page size in KiB.
#[cfg(unix)]
fn base_page_kib() -> u32 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let bytes = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u32::try_from(bytes / 1024).ok().filter(|&k| k > 0).unwrap_or(4)
}

/// The largest huge page this code asks for: above it (arm64 kernels with
/// 64 KiB base pages have 512 MiB ones) the buffer stays in base pages.
#[cfg(target_os = "linux")]
const MAX_HUGE_BYTES: usize = 32 << 20;

/// `len` bytes of fresh zeroed memory, page-aligned, touched; returns the
/// start, the length mapped and the page size behind it.
#[cfg(target_os = "linux")]
fn map(len: usize) -> (std::ptr::NonNull<u8>, usize, u32) {
    let huge = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&b| b.is_power_of_two() && b <= MAX_HUGE_BYTES);
    // An administrator's `never` stands: MADV_COLLAPSE would ignore it.
    let never =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").is_ok_and(|s| s.contains("[never]"));
    let Some(huge) = huge.filter(|_| !never) else {
        let ptr = mmap_anon(len);
        touch(ptr, len);
        return (ptr, len, base_page_kib());
    };
    // A whole number of huge pages, at a huge page's boundary: map one
    // more, then give back the ends around the aligned part.
    let mapped = len.div_ceil(huge) * huge;
    let raw = mmap_anon(mapped + huge);
    let start = (raw.as_ptr() as usize).next_multiple_of(huge);
    let head = start - raw.as_ptr() as usize;
    // SAFETY: both ranges lie inside the mapping just made and are not used.
    unsafe {
        if head > 0 {
            libc::munmap(raw.as_ptr().cast(), head);
        }
        libc::munmap((start + mapped) as *mut libc::c_void, huge - head);
    }
    let ptr = std::ptr::NonNull::new(start as *mut u8).expect("inside a mapping");
    // SAFETY: advice on a range this process mapped; an error only means
    // no huge pages, which `all_huge` reports.
    unsafe { libc::madvise(ptr.as_ptr().cast(), mapped, libc::MADV_HUGEPAGE) };
    touch(ptr, mapped);
    if !all_huge(start, mapped) {
        // MADV_COLLAPSE (Linux 6.1) compacts memory for the huge pages
        // synchronously, where the first touch may take base pages.
        const MADV_COLLAPSE: libc::c_int = 25;
        // SAFETY: as above; older kernels answer EINVAL.
        unsafe { libc::madvise(ptr.as_ptr().cast(), mapped, MADV_COLLAPSE) };
    }
    let page_kib = if all_huge(start, mapped) { (huge / 1024) as u32 } else { base_page_kib() };
    (ptr, mapped, page_kib)
}

/// Whether the mapping that holds `start..start + len` is all in huge
/// pages, as /proc/self/smaps reports it (`AnonHugePages`); false where it
/// cannot be read.
#[cfg(target_os = "linux")]
fn all_huge(start: usize, len: usize) -> bool {
    std::fs::read_to_string("/proc/self/smaps").is_ok_and(|smaps| all_huge_in(&smaps, start, len))
}

/// `all_huge` of one smaps text. The whole mapping must be in huge pages,
/// not `len` bytes of it: the kernel may merge the buffer's mapping with a
/// neighbour of the same flags (another sample's buffer), whose huge
/// pages are not the buffer's.
#[cfg(any(target_os = "linux", test))]
pub(super) fn all_huge_in(smaps: &str, start: usize, len: usize) -> bool {
    let mut mapping = None;
    for line in smaps.lines() {
        // A mapping's header: "7f00...-7f00... rw-p 00000000 00:00 0 ...".
        if let Some((range, _)) = line.split_once(' ')
            && let Some((from, to)) = range.split_once('-')
            && let (Ok(from), Ok(to)) = (usize::from_str_radix(from, 16), usize::from_str_radix(to, 16))
        {
            mapping = (from <= start && start + len <= to).then_some(to - from);
            continue;
        }
        if let Some(size) = mapping
            && let Some(rest) = line.strip_prefix("AnonHugePages:")
        {
            let kib: usize = rest.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
            return kib * 1024 >= size;
        }
    }
    false
}

/// Writes one byte in every base page, so that the kernel places all of
/// them before any call is timed.
#[cfg(unix)]
fn touch(ptr: std::ptr::NonNull<u8>, len: usize) {
    for at in (0..len).step_by(ALIGN) {
        // SAFETY: inside the mapping of `len` bytes.
        unsafe { ptr.as_ptr().add(at).write_volatile(0) };
    }
}

#[cfg(unix)]
fn mmap_anon(len: usize) -> std::ptr::NonNull<u8> {
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

/// `len` bytes of fresh zeroed pages (a page is at least `ALIGN`).
#[cfg(all(unix, not(target_os = "linux")))]
fn map(len: usize) -> (std::ptr::NonNull<u8>, usize, u32) {
    let ptr = mmap_anon(len);
    touch(ptr, len);
    (ptr, len, base_page_kib())
}

#[cfg(unix)]
fn unmap(ptr: std::ptr::NonNull<u8>, len: usize) {
    // SAFETY: mapped by map() with this length, and not used after.
    unsafe { libc::munmap(ptr.as_ptr().cast(), len) };
}

/// Windows: zeroed memory from the allocator, in 4 KiB pages (the base page
/// on x64 and arm64; large pages need a privilege runners do not grant).
#[cfg(not(unix))]
fn map(len: usize) -> (std::ptr::NonNull<u8>, usize, u32) {
    // SAFETY: the layout has a non-zero size.
    let raw = unsafe { std::alloc::alloc_zeroed(layout(len)) };
    let ptr = std::ptr::NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout(len)));
    (ptr, len, 4)
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
/// 512-byte sector: the sector's file offset at the start of one of the
/// sector's eight 64-byte lines, chosen per write, and the write's start
/// time in bytes 48 to 63 (fio's io_u.c, `small_content_scramble`). This
/// stores the same three words with three outputs of the generator drawn
/// per write in place of the offset and the time: the first plus the
/// sector's place in the buffer, the other two as they are. So no sector
/// of a write repeats one written before (short of the generator repeating
/// itself), storage that deduplicates or compresses gains nothing over fio,
/// and the cost is fio's: three stores per sector, nothing computed per
/// sector. Drawing the three words per sector instead, as an earlier
/// version did, took 6.0 µs per MiB against this one's 3.1 on the
/// development VM (a buffer in cache, both in one program, A B B A); the
/// difference is about 1 % of a 1 MiB write at 4 GB/s there.
pub(super) fn scramble(buf: &mut [u8], contents: &mut SplitMix64) {
    let line = (contents.next_u64() % 8) as usize * 64;
    let [start, high, low] = [contents.next_u64(), contents.next_u64(), contents.next_u64()];
    for (k, sector) in buf.chunks_exact_mut(SECTOR).enumerate() {
        let at = start.wrapping_add((k * SECTOR) as u64);
        sector[line..line + 8].copy_from_slice(&at.to_le_bytes());
        sector[48..56].copy_from_slice(&high.to_le_bytes());
        sector[56..64].copy_from_slice(&low.to_le_bytes());
    }
}
