//! The gigantic regime's pages: 1 GiB hugetlbfs pages for one
//! experiment's chases, taken from the pool as it is, or (as root, with
//! `--reserve-hugepages`) from a pool grown for them that goes back to its
//! old size with them. Every way this can fail is a skip of the regime,
//! worded for a reader: no `pdpe1gb`, no pool, none free, a pool the kernel
//! could not grow, a mapping refused.

use std::fs;
use std::io;
use std::path::PathBuf;

use super::super::region::{errno_name, human, Region, GIGANTIC_PAGE};
use super::pool::{undo_left_over, Pool, GIGANTIC_KIB};
use super::reservation::{Allowed, Reservation};

/// 1 GiB hugetlbfs pages for one experiment's chases. The pages go back to
/// the pool on drop, and a pool grown for them goes back to its old size
/// with them (also on a panic, or after Ctrl-C ends the experiment early;
/// a collector killed outright leaves a record the next one undoes).
pub struct Gigantic {
    // Declared, so dropped, before the reservation: the pages must be free
    // again before the pool can shrink back.
    region: Region,
    reservation: Option<Reservation>,
    /// Pages mapped.
    pages: u64,
    /// The pool before: `nr_hugepages`, `free_hugepages`.
    nr: u64,
    free: u64,
}

/// What [`Gigantic::acquire`] reads and calls: this machine's, or a test's
/// fakes.
struct Host {
    cpuinfo: PathBuf,
    pool: Pool,
    allow: fn(u64) -> Allowed,
    map: fn(usize) -> io::Result<Region>,
}

impl Host {
    fn system() -> Host {
        Host {
            cpuinfo: "/proc/cpuinfo".into(),
            pool: Pool::system(GIGANTIC_KIB),
            allow: crate::guard::allow_now,
            map: Region::map_gigantic,
        }
    }

    /// `Err` unless the CPU can map 1 GiB pages (`pdpe1gb` in its flags).
    fn has_gigantic_pages(&self) -> Result<(), String> {
        let path = self.cpuinfo.display();
        let text = fs::read_to_string(&self.cpuinfo)
            .map_err(|e| format!("cannot tell whether this CPU has 1 GiB pages: {path}: {e}"))?;
        let flags = text.lines().filter(|l| l.starts_with("flags"));
        if flags
            .flat_map(str::split_whitespace)
            .any(|f| f == "pdpe1gb")
        {
            Ok(())
        } else {
            Err(format!(
                "this CPU cannot map 1 GiB pages: the flags in {path} lack pdpe1gb"
            ))
        }
    }
}

impl Gigantic {
    /// Maps `bytes` (whole 1 GiB pages, one at least) from the 1 GiB pool.
    /// With `reserve` (the user passed `--reserve-hugepages`), root may
    /// grow the pool by the pages missing, and it goes back to its old
    /// size when the `Gigantic` is dropped. `Err` is why not, worded for a
    /// reader: the regime is skipped.
    pub fn acquire(bytes: u64, reserve: bool) -> Result<Gigantic, String> {
        Gigantic::acquire_on(&Host::system(), bytes, reserve)
    }

    fn acquire_on(host: &Host, bytes: u64, reserve: bool) -> Result<Gigantic, String> {
        host.has_gigantic_pages()?;
        let pool = &host.pool;
        // A killed run's change, undone; a live one's stops a reservation.
        let _ = undo_left_over(pool);
        let (nr, free) = pool.size().ok_or_else(|| {
            if pool.dir.exists() {
                format!(
                    "the 1 GiB hugetlbfs pool cannot be read: no number in {}/nr_hugepages or free_hugepages",
                    pool.dir.display()
                )
            } else {
                format!(
                    "this kernel has no 1 GiB hugetlbfs pool ({} does not exist)",
                    pool.dir.display()
                )
            }
        })?;
        let pages = bytes.div_ceil(GIGANTIC_PAGE as u64).max(1);
        let reservation = if free >= pages {
            None
        } else if reserve {
            Some(Gigantic::reserve(host, nr, free, pages)?)
        } else {
            return Err(none_free(nr, free, pages));
        };
        let region = (host.map)(bytes as usize).map_err(|e| {
            let free = pool.read("free_hugepages").unwrap_or(0);
            format!(
                "mmap of {} with MAP_HUGETLB | MAP_HUGE_1GB failed with {}, with {} free in the 1 GiB pool (another process may have taken it, or a cgroup's hugetlb limit forbids it)",
                human(pages as usize * GIGANTIC_PAGE),
                errno_name(&e),
                count(free, "page")
            )
        })?;
        Ok(Gigantic {
            region,
            reservation,
            pages,
            nr,
            free,
        })
    }

    /// Grows the pool (`nr` pages, `free` of them free) so that `pages`
    /// are free; `Err` is why not, and the pool is as it was.
    fn reserve(host: &Host, nr: u64, free: u64, pages: u64) -> Result<Reservation, String> {
        let pool = &host.pool;
        let more = pages - free;
        // Less than a whole page is no page: a partial allowance is none.
        let whole = |want| match (host.allow)(want) {
            Ok(Ok(a)) if a.bytes < want => Ok(Err(format!(
                "it allows {}, not {}{}",
                human(a.bytes as usize),
                human(want as usize),
                a.note.map_or(String::new(), |n| format!(" ({n})"))
            ))),
            other => other,
        };
        let made = Reservation::make(pool, nr, more, more * pool.page_bytes(), whole);
        let reservation = made.result.map_err(|why| match (why, made.capped) {
            (Some(why), _) => format!("--reserve-hugepages could not grow the 1 GiB pool: {why}"),
            (None, capped) => format!(
                "the memory guard keeps this run from reserving {}: {}",
                gigantic_pages(more),
                capped.map_or("nothing to reserve".into(), |c| c.reason)
            ),
        })?;
        match short(pool, made.previous, made.target, pages) {
            Some(why) => Err(why),
            None => Ok(reservation),
        }
    }

    /// The mapped page(s): `len` is the `bytes` asked, the window whole pages.
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// Where the pages came from, for a reader: `1 free page of a pool of
    /// 1`, `reserved 1 page for this run (pool was 0), put back afterwards`.
    pub fn provenance(&self) -> String {
        match &self.reservation {
            Some(r) => {
                let free = match self.free {
                    0 => String::new(),
                    n => format!(", {n} of them free"),
                };
                format!(
                    "reserved {} for this run (pool was {}{free}), put back afterwards",
                    count(r.requested, "page"),
                    self.nr
                )
            }
            None if self.pages == self.free => format!(
                "{} of a pool of {}",
                count(self.pages, "free page"),
                self.nr
            ),
            None => format!(
                "{} of the {} free pages of a pool of {}",
                self.pages, self.free, self.nr
            ),
        }
    }
}

/// Why nothing can be mapped from a pool of `nr` with `free` free when
/// `pages` are needed and `--reserve-hugepages` was not given.
fn none_free(nr: u64, free: u64, pages: u64) -> String {
    let more = match (pages - free, nr) {
        (1, 0) => "one".to_string(),
        (1, _) => "one more".to_string(),
        (n, 0) => n.to_string(),
        (n, _) => format!("{n} more"),
    };
    let them = if pages - free == 1 { "it" } else { "them" };
    let how =
        format!("as root, --reserve-hugepages reserves {more} and puts {them} back afterwards");
    match (nr, free) {
        (0, _) => format!(
            "no 1 GiB pages are reserved on this machine (the 1 GiB pool's nr_hugepages is 0), and MAP_HUGETLB maps only reserved ones; {how}"
        ),
        (_, 0) => format!(
            "all {nr} reserved 1 GiB pages are in use (free_hugepages 0); {how}"
        ),
        _ => format!(
            "{free} of the {nr} reserved 1 GiB pages {} free, and {pages} are needed; {how}",
            if free == 1 { "is" } else { "are" }
        ),
    }
}

/// `None` when `pages` are free after the pool (of `previous` pages) was
/// set to `target`; else why not, with what the pool reads.
fn short(pool: &Pool, previous: u64, target: u64, pages: u64) -> Option<String> {
    let (nr, free) = pool.size().unwrap_or((0, 0));
    if free >= pages {
        return None;
    }
    let read = format!(
        "after writing {target} to {} (it was {previous}), it reads {nr} and free_hugepages {free}, {} needed",
        pool.nr_hugepages(),
        pages
    );
    Some(if nr < target {
        format!(
            "the kernel did not grow the 1 GiB pool: {read}. A 1 GiB page needs 1 GiB of free, physically contiguous memory, and the kernel found none; reserving at boot (hugepagesz=1G hugepages=1 on the kernel command line) is the reliable way"
        )
    } else {
        format!("the 1 GiB pool grew, but another process took its pages first: {read}")
    })
}

/// `1 page`, `2 pages`.
fn count(n: u64, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// `one 1 GiB page`, `2 1 GiB pages`.
fn gigantic_pages(n: u64) -> String {
    match n {
        1 => "one 1 GiB page".into(),
        n => format!("{n} 1 GiB pages"),
    }
}

#[cfg(test)]
mod tests;
