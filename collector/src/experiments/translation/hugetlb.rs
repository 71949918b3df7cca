//! The hugetlbfs pools: `MAP_HUGETLB` from pages set aside in advance.
//! Unlike THP these are guaranteed and never split, but only if someone
//! reserved them; with none reserved the mapping fails by design, and that
//! is the result, not an error. The 2 MiB pool is the second half of `thp`
//! ([`attempt`]); the 1 GiB pool backs the chases' gigantic regime
//! ([`Gigantic`]).
//!
//! The collector changes no system setting unless asked: only
//! `--reserve-hugepages` writes a pool's size, and the old value is put
//! back as soon as the attempt is over (also on an error, a panic or Ctrl-C,
//! which only ends the attempt early). Before the change, the old value is
//! written to the pool's record (`/run/pagewalk-nr_hugepages` for the 2 MiB
//! pool, `/run/pagewalk-nr_hugepages-1048576kB` for the 1 GiB one) held
//! locked while the change lasts: a collector killed with SIGKILL cannot put
//! it back, so the next one to start finds the record unlocked, puts the
//! recorded value back and says so ([`recover_left_over`]).

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::PathBuf;

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{HugetlbAttempt, HugetlbReservation};

use super::chase::{self, Counters, Layout, Plan};
use super::checks::Proof;
use super::region::{errno_name, human, Region, GIGANTIC_PAGE, HUGE_PAGE};
use super::SEED;
use crate::guard::Allowance;

/// The 2 MiB pool's page size, as its folder names it.
pub const HUGE_KIB: u64 = (HUGE_PAGE >> 10) as u64;
/// The 1 GiB pool's.
pub const GIGANTIC_KIB: u64 = (GIGANTIC_PAGE >> 10) as u64;

const POOLS: &str = "/sys/kernel/mm/hugepages";
/// The pool size before a collector changed it. /run: root-only, and
/// emptied at boot, when the pool is back to its configured size anyway.
/// The 2 MiB pool's record keeps the name it had when it was the only one
/// (so that a record an older collector left is still recovered); the
/// others' add their page size.
const RECORD: &str = "/run/pagewalk-nr_hugepages";

/// What the memory guard allows ([`crate::guard::allow_now`]).
type Allowed = Result<Result<Allowance, String>, String>;

/// A pool's files, and where its size before a change is recorded (a
/// test points both at a folder of its own).
#[derive(Debug, Clone)]
pub struct Pool {
    dir: PathBuf,
    record: PathBuf,
    page_kib: u64,
}

impl Pool {
    /// The pool of `page_kib` pages: [`HUGE_KIB`], [`GIGANTIC_KIB`].
    pub fn system(page_kib: u64) -> Pool {
        let record = if page_kib == HUGE_KIB {
            RECORD.to_string()
        } else {
            format!("{RECORD}-{page_kib}kB")
        };
        Pool {
            dir: format!("{POOLS}/hugepages-{page_kib}kB").into(),
            record: record.into(),
            page_kib,
        }
    }

    fn page_bytes(&self) -> u64 {
        self.page_kib << 10
    }

    /// `the 1 GiB pool's nr_hugepages`, for messages.
    fn nr_hugepages(&self) -> String {
        format!(
            "the {} pool's nr_hugepages",
            human(self.page_bytes() as usize)
        )
    }

    /// Who says on stderr what happened to this pool: what reserves from it.
    fn speaker(&self) -> &'static str {
        if self.page_kib == HUGE_KIB {
            "thp"
        } else {
            "gigantic"
        }
    }

    fn read(&self, file: &str) -> Option<u64> {
        fs::read_to_string(self.dir.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// `nr_hugepages` and `free_hugepages`; `None` without such a pool.
    fn size(&self) -> Option<(u64, u64)> {
        Some((self.read("nr_hugepages")?, self.read("free_hugepages")?))
    }

    fn set(&self, pages: u64) -> Result<(), String> {
        let path = self.dir.join("nr_hugepages");
        fs::write(&path, pages.to_string()).map_err(|e| {
            let root = matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM));
            format!(
                "writing {pages} to {} failed with {}{}",
                path.display(),
                errno_name(&e),
                if root { " (it takes root)" } else { "" }
            )
        })
    }

    /// Sets the size back to `previous`; true when it reads back so.
    fn put_back(&self, previous: u64) -> Result<(), String> {
        self.set(previous)?;
        match self.read("nr_hugepages") {
            Some(now) if now == previous => Ok(()),
            now => Err(format!(
                "it reads {} after writing {previous}",
                now.map_or("nothing".into(), |n| n.to_string())
            )),
        }
    }
}

/// The pool size before this collector changed it, in [`Pool::record`],
/// whose lock is held for as long as the change lasts.
#[derive(Debug)]
struct Record {
    path: PathBuf,
    _lock: File,
}

impl Record {
    fn write(pool: &Pool, previous: u64) -> Result<Record, String> {
        let path = pool.record.clone();
        let mut file = crate::lockfile::create_locked(&path, 0o644).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!(
                    "another collector is changing {} (it holds {}); not changing it too",
                    pool.nr_hugepages(),
                    path.display()
                )
            } else {
                format!(
                    "cannot record the pool size before changing it in {}: {e}",
                    path.display()
                )
            }
        })?;
        let text = format!("previous {previous}\npid {}\n", std::process::id());
        if let Err(e) = file
            .write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
        {
            let _ = fs::remove_file(&path);
            return Err(format!("cannot write {}: {e}", path.display()));
        }
        Ok(Record { path, _lock: file })
    }

    /// The change is undone: the record goes (while its lock is held).
    fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// `previous N` of a record's text.
fn recorded_previous(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("previous "))?
        .trim()
        .parse()
        .ok()
}

/// At a collector's start, for each pool: if a collector that had changed
/// its size was killed before it could put it back (its record is there
/// and nobody holds its lock), puts the recorded size back, removes the
/// record and says so on stderr.
pub fn recover_left_over() {
    for pool in [HUGE_KIB, GIGANTIC_KIB].map(Pool::system) {
        match recover(&pool) {
            Ok(Some(done)) => eprintln!("{done}"),
            Ok(None) => {}
            Err(why) => eprintln!("{}: warning: {why}", pool.speaker()),
        }
    }
}

/// Before a pool is read for a change: a killed collector's change is
/// undone first (said on stderr), or its value would be taken for this
/// machine's own. `Some(why)` when a live collector is changing it now.
fn undo_left_over(pool: &Pool) -> Option<String> {
    match recover(pool) {
        Ok(done) => {
            if let Some(done) = done {
                eprintln!("{done}");
            }
            None
        }
        Err(why) => Some(why),
    }
}

/// What [`recover_left_over`] does for `pool`: `Ok(Some(message))` when
/// the size was put back, `Ok(None)` when there was nothing to do, `Err`
/// when a live collector holds the record or the size could not be put
/// back (the record then stays, for the next start to try again).
fn recover(pool: &Pool) -> Result<Option<String>, String> {
    let record = &pool.record;
    if fs::symlink_metadata(record).is_err() {
        return Ok(None);
    }
    let Some(lock) = crate::lockfile::unheld(record) else {
        return Err(format!(
            "{} is held by a collector changing {} now",
            record.display(),
            pool.nr_hugepages()
        ));
    };
    let text = fs::read_to_string(record).unwrap_or_default();
    let Some(previous) = recorded_previous(&text) else {
        // Killed before the record was written, so before any change.
        let _ = fs::remove_file(record);
        return Ok(None);
    };
    let now = pool.read("nr_hugepages");
    let left = format!(
        "a collector killed while it had changed {} left it at {}",
        pool.nr_hugepages(),
        now.map_or("?".into(), |n| n.to_string())
    );
    pool.put_back(previous).map_err(|why| {
        format!(
            "{left}; putting back the recorded {previous} failed: {why} (the record stays in {})",
            record.display()
        )
    })?;
    let _ = fs::remove_file(record);
    drop(lock);
    Ok(Some(format!(
        "{}: {left}; put back to {previous}, the value recorded in {} before the change",
        pool.speaker(),
        record.display()
    )))
}

/// Tries to chase `want` bytes of hugetlbfs memory (less if the pool is
/// smaller), reserving `reserve` pages first when asked.
pub fn attempt(
    want: u64,
    reserve: Option<u64>,
    plan: &Plan,
    counters: &Counters,
    proof: &mut Proof,
) -> HugetlbAttempt {
    let pool = Pool::system(HUGE_KIB);
    let mut reservation = reserve.map(|pages| Reservation::for_attempt(&pool, pages, want));
    let mut result = try_pool(&pool, want, plan, counters, proof);
    if let Some(r) = reservation.take() {
        result.reserved = Some(match r {
            Ok(r) => r.restore(),
            Err(failed) => failed,
        });
    }
    result
}

fn try_pool(
    pool: &Pool,
    want: u64,
    plan: &Plan,
    counters: &Counters,
    proof: &mut Proof,
) -> HugetlbAttempt {
    let mut result = HugetlbAttempt {
        page_bytes: HUGE_PAGE as u64,
        nr_hugepages: 0,
        free_hugepages: 0,
        reserved: None,
        size_bytes: 0,
        mapped: false,
        chase: None,
        outcome: String::new(),
        errno: None,
    };
    let (Some(nr), Some(free)) = (pool.read("nr_hugepages"), pool.read("free_hugepages")) else {
        result.outcome = format!(
            "this kernel has no 2 MiB hugetlbfs pool ({})",
            pool.dir.display()
        );
        return result;
    };
    (result.nr_hugepages, result.free_hugepages) = (nr, free);
    // With no free page, still ask for one: the kernel's answer is the finding.
    let size = (want / HUGE_PAGE as u64).min(free).max(1) * HUGE_PAGE as u64;
    result.size_bytes = size;
    let region = match Region::map_hugetlb(size as usize) {
        Ok(r) => r,
        Err(e) => {
            result.errno = Some(errno_name(&e));
            result.outcome = match (nr, free) {
                (0, _) => format!(
                    "no huge pages reserved (nr_hugepages 0): MAP_HUGETLB cannot map ({}), as designed; reserve some with --reserve-hugepages N (root)",
                    errno_name(&e)
                ),
                (_, 0) => format!(
                    "all {nr} reserved huge pages are in use: MAP_HUGETLB cannot map ({})",
                    errno_name(&e)
                ),
                _ => format!("MAP_HUGETLB of {} failed: {e}", human(size as usize)),
            };
            return result;
        }
    };
    let layout = Layout::Strided { stride: 64 };
    let next = cycle(size as usize / 64, SEED);
    let c = chase::run_in(&region, layout, &next, plan, counters);
    proof.add(&format!("hugetlbfs {}", human(size as usize)), &c);
    result.outcome = format!(
        "mapped {} from a pool of {nr} reserved 2 MiB pages ({free} free): {:.1} ns per load",
        human(size as usize),
        c.point.ns_per_load.median
    );
    result.mapped = true;
    result.chase = Some(c.point);
    result
}

/// Pages reserved for an attempt or an experiment; the previous pool size
/// goes back on drop if [`Reservation::restore`] was not called. While it
/// lasts, the previous size is in the pool's record.
#[derive(Debug)]
struct Reservation {
    pool: Pool,
    record: Option<Record>,
    requested: u64,
    capped: Option<String>,
    obtained: u64,
    previous: u64,
    done: bool,
}

/// What [`Reservation::make`] came to: the pool size before and the one
/// asked of the kernel, what capped the request, and the reservation or
/// why none was made (`None`: nothing was left to reserve once capped).
struct Made {
    previous: u64,
    target: u64,
    capped: Option<Capped>,
    result: Result<Reservation, Option<String>>,
}

impl Reservation {
    /// Sets the pool to `base + pages`, `pages` capped to what `want` bytes
    /// take and to what the memory guard (`allow`) allows for them:
    /// reserved pages are taken from everyone else.
    fn make(
        pool: &Pool,
        base: u64,
        pages: u64,
        want: u64,
        allow: impl FnOnce(u64) -> Allowed,
    ) -> Made {
        let blocked = undo_left_over(pool);
        let previous = pool.read("nr_hugepages").unwrap_or(0);
        let (more, capped) = cap_reservation(pages, want, pool.page_bytes(), allow(want));
        let target = base + more;
        let result = if more == 0 {
            Err(None)
        } else if let Some(why) = blocked {
            Err(Some(why))
        } else {
            let note = capped.as_ref().map(Capped::to_string);
            Reservation::change(pool, pages, note, previous, target).map_err(Some)
        };
        Made {
            previous,
            target,
            capped,
            result,
        }
    }

    /// `--reserve-hugepages pages` for the 2 MiB attempt of `want` bytes:
    /// the pool set to `pages`, capped. What got in the way is said on
    /// stderr, and the `Err` is already the record of why not.
    fn for_attempt(pool: &Pool, pages: u64, want: u64) -> Result<Reservation, HugetlbReservation> {
        let made = Reservation::make(pool, 0, pages, want, crate::guard::allow_now);
        let capped = made.capped.as_ref().map(Capped::to_string);
        if let Some(why) = &capped {
            eprintln!("thp: --reserve-hugepages {pages}: {why}");
        }
        made.result.map_err(|why| {
            if let Some(why) = why {
                eprintln!("thp: --reserve-hugepages {}: {why}", made.target);
            }
            HugetlbReservation {
                requested: pages,
                capped,
                obtained: made.previous,
                previous: made.previous,
                restored: true,
            }
        })
    }

    /// Records `previous`, then sets the pool to `target`.
    fn change(
        pool: &Pool,
        requested: u64,
        capped: Option<String>,
        previous: u64,
        target: u64,
    ) -> Result<Reservation, String> {
        let record = Record::write(pool, previous)?;
        if let Err(why) = pool.set(target) {
            record.remove();
            return Err(why);
        }
        Ok(Reservation {
            pool: pool.clone(),
            record: Some(record),
            requested,
            capped,
            // The kernel gives what it can find: maybe fewer.
            obtained: pool.read("nr_hugepages").unwrap_or(0),
            previous,
            done: false,
        })
    }

    /// Puts the previous size back; the record goes once it reads back
    /// so (else it stays, for the next collector to try again). Says on
    /// stderr when it could not.
    fn put_back(&mut self) -> bool {
        self.done = true;
        match self.pool.put_back(self.previous) {
            Ok(()) => {
                if let Some(record) = self.record.take() {
                    record.remove();
                }
                true
            }
            Err(why) => {
                eprintln!(
                    "{}: could not put {} back to {}: {why}",
                    self.pool.speaker(),
                    self.pool.nr_hugepages(),
                    self.previous
                );
                false
            }
        }
    }

    fn restore(mut self) -> HugetlbReservation {
        let restored = self.put_back();
        HugetlbReservation {
            requested: self.requested,
            capped: self.capped.clone(),
            obtained: self.obtained,
            previous: self.previous,
            restored,
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.done {
            self.put_back();
        }
    }
}

/// Why fewer pages than asked are reserved.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Capped {
    most: u64,
    asked: u64,
    reason: String,
}

impl fmt::Display for Capped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "capped to {} pages (of {} asked): {}",
            self.most, self.asked, self.reason
        )
    }
}

/// How many pages of `page` bytes to reserve for `asked`: never more than
/// the `want` bytes they are for, nor than the guard's allowance for them.
fn cap_reservation(asked: u64, want: u64, page: u64, allowance: Allowed) -> (u64, Option<Capped>) {
    let (allowed, why) = match allowance {
        Ok(Ok(a)) => (a.bytes / page, a.note),
        Ok(Err(why)) | Err(why) => (0, Some(why)),
    };
    let most = (want / page).min(allowed);
    if asked <= most {
        return (asked, None);
    }
    let reason =
        why.unwrap_or_else(|| format!("the attempt maps at most {}", human(want as usize)));
    (
        most,
        Some(Capped {
            most,
            asked,
            reason,
        }),
    )
}

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
mod tests {
    use super::*;
    use crate::guard::Allowance;

    const MIB: u64 = 1 << 20;
    const HUGE: u64 = HUGE_PAGE as u64;

    /// A 2 MiB pool of `nr` pages in a folder of its own, its record beside it.
    fn fake_pool(nr: u64) -> (tempfile::TempDir, Pool) {
        fake_pool_of(HUGE_KIB, nr, nr)
    }

    /// A pool of `nr` pages of `page_kib`, `free` of them free.
    fn fake_pool_of(page_kib: u64, nr: u64, free: u64) -> (tempfile::TempDir, Pool) {
        let dir = tempfile::tempdir().unwrap();
        let pool = Pool {
            dir: dir.path().join(format!("hugepages-{page_kib}kB")),
            record: dir.path().join("pagewalk-nr_hugepages"),
            page_kib,
        };
        fs::create_dir(&pool.dir).unwrap();
        fs::write(pool.dir.join("nr_hugepages"), format!("{nr}\n")).unwrap();
        fs::write(pool.dir.join("free_hugepages"), format!("{free}\n")).unwrap();
        (dir, pool)
    }

    impl Reservation {
        /// What SIGKILL does: nothing is put back, and the kernel closes
        /// the record (which releases its lock).
        fn killed(mut self) {
            self.done = true;
        }
    }

    #[test]
    fn a_killed_runs_change_is_put_back_at_the_next_start() {
        let (_dir, pool) = fake_pool(0);
        let r = Reservation::change(&pool, 16, None, 0, 16).unwrap();
        assert_eq!(pool.read("nr_hugepages"), Some(16));
        // While the run lives, its change is its own.
        let live = recover(&pool).unwrap_err();
        assert!(live.contains("held by a collector"), "{live}");
        assert_eq!(pool.read("nr_hugepages"), Some(16));
        r.killed();
        assert_eq!(pool.read("nr_hugepages"), Some(16), "left changed");

        let said = recover(&pool).unwrap().expect("put back");
        assert_eq!(pool.read("nr_hugepages"), Some(0));
        assert!(said.contains("left it at 16; put back to 0"), "{said}");
        assert!(!pool.record.exists(), "the record goes once done");
        assert_eq!(recover(&pool), Ok(None), "nothing more to do");
        // The next reservation takes 0 for the old value, not 16.
        let next = Reservation::change(&pool, 4, None, pool.read("nr_hugepages").unwrap(), 4);
        let next = next.unwrap().restore();
        assert_eq!((next.previous, next.restored), (0, true));
        assert_eq!(pool.read("nr_hugepages"), Some(0));
    }

    #[test]
    fn a_normal_restore_or_drop_removes_the_record() {
        let (_dir, pool) = fake_pool(2);
        let r = Reservation::change(&pool, 8, None, 2, 8).unwrap();
        assert!(pool.record.exists());
        assert_eq!(
            recorded_previous(&fs::read_to_string(&pool.record).unwrap()),
            Some(2)
        );
        let done = r.restore();
        assert!(done.restored);
        assert_eq!(pool.read("nr_hugepages"), Some(2));
        assert!(!pool.record.exists());

        // An error or a panic ends the attempt by dropping it.
        drop(Reservation::change(&pool, 8, None, 2, 8).unwrap());
        assert_eq!(pool.read("nr_hugepages"), Some(2));
        assert!(!pool.record.exists());
    }

    #[test]
    fn a_second_collector_does_not_change_a_pool_another_holds() {
        let (_dir, pool) = fake_pool(0);
        let first = Reservation::change(&pool, 16, None, 0, 16).unwrap();
        let second = Reservation::change(&pool, 4, None, 16, 4).unwrap_err();
        assert!(second.contains("another collector"), "{second}");
        assert_eq!(pool.read("nr_hugepages"), Some(16));
        first.restore();
        assert_eq!(pool.read("nr_hugepages"), Some(0));
    }

    #[test]
    fn a_record_the_killed_run_never_filled_changed_nothing() {
        let (_dir, pool) = fake_pool(3);
        fs::write(&pool.record, "").unwrap();
        assert_eq!(recover(&pool), Ok(None));
        assert!(!pool.record.exists());
        assert_eq!(pool.read("nr_hugepages"), Some(3));
    }

    #[test]
    fn a_huge_request_is_capped_to_what_the_attempt_maps() {
        let plenty = Ok(Ok(Allowance {
            bytes: 256 * MIB,
            note: None,
        }));
        let (pages, why) = cap_reservation(99_999_999_999, 256 * MIB, HUGE, plenty);
        assert_eq!(pages, 128);
        assert!(why.unwrap().to_string().contains("of 99999999999 asked"));
        let ok = Ok(Ok(Allowance {
            bytes: 256 * MIB,
            note: None,
        }));
        assert_eq!(cap_reservation(16, 256 * MIB, HUGE, ok), (16, None));
    }

    #[test]
    fn the_guard_caps_it_further_and_says_why() {
        let tight = Ok(Ok(Allowance {
            bytes: 64 * MIB,
            note: Some("scaled down: a quarter of MemAvailable (256 MiB)".into()),
        }));
        let (pages, why) = cap_reservation(1000, 256 * MIB, HUGE, tight);
        assert_eq!(pages, 32);
        assert!(why.unwrap().reason.contains("MemAvailable"));
        let none = Ok(Err("not even 2 MiB fits".to_string()));
        assert_eq!(cap_reservation(1000, 256 * MIB, HUGE, none).0, 0);
    }

    #[test]
    fn each_pool_has_its_folder_and_record() {
        let huge = Pool::system(HUGE_KIB);
        assert_eq!(
            huge.dir,
            PathBuf::from("/sys/kernel/mm/hugepages/hugepages-2048kB")
        );
        // The name an older collector's record has.
        assert_eq!(huge.record, PathBuf::from("/run/pagewalk-nr_hugepages"));
        let gigantic = Pool::system(GIGANTIC_KIB);
        assert_eq!(
            gigantic.dir,
            PathBuf::from("/sys/kernel/mm/hugepages/hugepages-1048576kB")
        );
        assert_eq!(
            gigantic.record,
            PathBuf::from("/run/pagewalk-nr_hugepages-1048576kB")
        );
        assert_eq!(gigantic.nr_hugepages(), "the 1 GiB pool's nr_hugepages");
    }

    const CPU: &str = "processor\t: 0\nflags\t\t: fpu pse msr pdpe1gb rdtscp lm\n";

    fn plenty(want: u64) -> Allowed {
        Ok(Ok(Allowance {
            bytes: want,
            note: None,
        }))
    }

    /// Plain pages stand for the 1 GiB ones a fake pool cannot give.
    fn plain(len: usize) -> io::Result<Region> {
        Region::map(len, pagewalk_model::Regime::Small).map_err(io::Error::other)
    }

    /// A machine with 1 GiB pages and a pool of `nr` (`free` free), whose
    /// guard allows anything.
    fn fake_host(nr: u64, free: u64) -> (tempfile::TempDir, Host) {
        let (dir, pool) = fake_pool_of(GIGANTIC_KIB, nr, free);
        let cpuinfo = dir.path().join("cpuinfo");
        fs::write(&cpuinfo, CPU).unwrap();
        let host = Host {
            cpuinfo,
            pool,
            allow: plenty,
            map: plain,
        };
        (dir, host)
    }

    /// As the kernel does, what is reserved is free (none is in use).
    fn kernel_like(pool: &Pool) {
        let free = pool.dir.join("free_hugepages");
        fs::remove_file(&free).unwrap();
        std::os::unix::fs::symlink("nr_hugepages", free).unwrap();
    }

    /// `why` begins with `start`.
    #[track_caller]
    fn says(why: &str, start: &str) {
        assert!(
            why.starts_with(start),
            "{why}\n  does not begin with\n{start}"
        );
    }

    /// Acquires 64 MiB (one page); the pool's nr_hugepages and whether
    /// its record is there are checked to be `nr` and none after a skip.
    fn skipped(host: &Host, reserve: bool, nr: u64) -> String {
        let why = Gigantic::acquire_on(host, 64 * MIB, reserve)
            .err()
            .expect("skipped");
        assert_eq!(host.pool.read("nr_hugepages"), Some(nr), "{why}");
        assert!(!host.pool.record.exists(), "{why}");
        why
    }

    #[test]
    fn gigantic_pages_need_a_cpu_with_pdpe1gb() {
        let (_dir, host) = fake_host(1, 1);
        fs::write(&host.cpuinfo, CPU.replace(" pdpe1gb", "")).unwrap();
        let why = skipped(&host, true, 1);
        says(&why, "this CPU cannot map 1 GiB pages");
        assert!(why.ends_with("lack pdpe1gb"), "{why}");
    }

    #[test]
    fn gigantic_pages_need_a_kernel_with_a_1_gib_pool() {
        let (_dir, host) = fake_host(0, 0);
        fs::remove_dir_all(&host.pool.dir).unwrap();
        let why = Gigantic::acquire_on(&host, 64 * MIB, true).err().unwrap();
        says(&why, "this kernel has no 1 GiB hugetlbfs pool");
        assert!(why.contains("hugepages-1048576kB does not exist"), "{why}");
    }

    #[test]
    fn with_none_free_and_no_reserve_flag_it_says_how_to_get_one() {
        let (_dir, host) = fake_host(0, 0);
        let why = skipped(&host, false, 0);
        assert!(why.contains("nr_hugepages is 0"), "{why}");
        assert!(
            why.ends_with("as root, --reserve-hugepages reserves one and puts it back afterwards"),
            "{why}"
        );
        let (_dir, host) = fake_host(2, 0);
        let why = skipped(&host, false, 2);
        says(&why, "all 2 reserved 1 GiB pages are in use (free_hugepages 0); as root, --reserve-hugepages reserves one more and puts it back afterwards");
        let (_dir, host) = fake_host(2, 1);
        let why = Gigantic::acquire_on(&host, 3 << 30, false).err().unwrap();
        says(&why, "1 of the 2 reserved 1 GiB pages is free, and 3 are needed; as root, --reserve-hugepages reserves 2 more and puts them back afterwards");
    }

    #[test]
    fn a_free_page_is_used_as_it_is() {
        let (_dir, host) = fake_host(1, 1);
        let g = Gigantic::acquire_on(&host, 64 * MIB, false).unwrap();
        assert_eq!(g.provenance(), "1 free page of a pool of 1");
        assert_eq!(g.region().len, 64 << 20);
        assert!(!host.pool.record.exists(), "nothing changed");
        let (_dir, host) = fake_host(4, 3);
        let g = Gigantic::acquire_on(&host, 2 << 30, true).unwrap();
        assert_eq!(g.provenance(), "2 of the 3 free pages of a pool of 4");
        drop(g);
        assert_eq!(host.pool.read("nr_hugepages"), Some(4));
    }

    #[test]
    fn a_reserved_page_goes_back_with_the_gigantic() {
        let (_dir, host) = fake_host(0, 0);
        kernel_like(&host.pool);
        let g = Gigantic::acquire_on(&host, 64 * MIB, true).unwrap();
        assert_eq!(
            g.provenance(),
            "reserved 1 page for this run (pool was 0), put back afterwards"
        );
        assert_eq!(host.pool.read("nr_hugepages"), Some(1));
        assert!(host.pool.record.exists(), "recorded while it lasts");
        drop(g);
        assert_eq!(host.pool.read("nr_hugepages"), Some(0));
        assert!(!host.pool.record.exists());
    }

    #[test]
    fn a_pool_the_kernel_does_not_grow_says_what_it_reads() {
        let (_dir, pool) = fake_pool_of(GIGANTIC_KIB, 0, 0);
        let r = Reservation::change(&pool, 1, None, 0, 1).unwrap();
        // The kernel found no free, contiguous 1 GiB.
        fs::write(pool.dir.join("nr_hugepages"), "0\n").unwrap();
        let why = short(&pool, 0, 1, 1).unwrap();
        says(&why, "the kernel did not grow the 1 GiB pool: after writing 1 to the 1 GiB pool's nr_hugepages (it was 0), it reads 0");
        assert!(why.contains("physically contiguous"), "{why}");
        drop(r);
        assert!(!pool.record.exists());

        // Grown by the missing pages (3 needed, 1 free: 2 more), but they
        // were gone before they could be mapped (the fake's free count
        // does not follow).
        let (_dir, host) = fake_host(3, 1);
        let why = Gigantic::acquire_on(&host, (2 << 30) + 1, true)
            .err()
            .unwrap();
        says(&why, "the 1 GiB pool grew, but another process took its pages first: after writing 5 to the 1 GiB pool's nr_hugepages (it was 3), it reads 5 and free_hugepages 1, 3 needed");
        assert_eq!(host.pool.read("nr_hugepages"), Some(3));
    }

    #[test]
    fn a_failed_write_names_its_errno() {
        // A number nobody may write: EACCES, or EROFS where /proc/sys is
        // mounted read-only.
        let fixed = "/proc/sys/kernel/ngroups_max";
        let Some(nr) = fs::read_to_string(fixed)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        else {
            eprintln!("skipped: no {fixed}");
            return;
        };
        let (_dir, host) = fake_host(0, 0);
        let file = host.pool.dir.join("nr_hugepages");
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(fixed, &file).unwrap();
        let why = skipped(&host, true, nr);
        says(
            &why,
            &format!(
                "--reserve-hugepages could not grow the 1 GiB pool: writing {} to {} failed with E",
                nr + 1,
                file.display()
            ),
        );
    }

    #[test]
    fn the_guard_keeps_a_page_it_cannot_afford() {
        let (_dir, mut host) = fake_host(0, 0);
        kernel_like(&host.pool);
        host.allow = |_| {
            Ok(Err(
                "not even 2 MiB fits in a quarter of MemAvailable (4 MiB)".into(),
            ))
        };
        let why = skipped(&host, true, 0);
        assert_eq!(why, "the memory guard keeps this run from reserving one 1 GiB page: not even 2 MiB fits in a quarter of MemAvailable (4 MiB)");
        // Half a page is no page.
        host.allow = |_| {
            Ok(Ok(Allowance {
                bytes: 512 * MIB,
                note: Some("scaled down: a quarter of MemAvailable (2 GiB)".into()),
            }))
        };
        let why = skipped(&host, true, 0);
        assert!(
            why.contains("reserving one 1 GiB page: it allows 512 MiB, not 1 GiB"),
            "{why}"
        );
    }

    #[test]
    fn a_failed_mmap_names_its_errno_and_puts_the_pool_back() {
        let (_dir, mut host) = fake_host(0, 0);
        kernel_like(&host.pool);
        host.map = |_| Err(io::Error::from_raw_os_error(libc::ENOMEM));
        let why = skipped(&host, true, 0);
        says(
            &why,
            "mmap of 1 GiB with MAP_HUGETLB | MAP_HUGE_1GB failed with ENOMEM, with 1 page free",
        );
    }

    #[test]
    fn a_pool_another_collector_is_changing_is_left_alone() {
        // (Its page is in use: free stays 0.)
        let (_dir, host) = fake_host(0, 0);
        let other = Reservation::change(&host.pool, 1, None, 0, 1).unwrap();
        let why = Gigantic::acquire_on(&host, 64 * MIB, true).err().unwrap();
        assert!(
            why.contains("held by a collector changing the 1 GiB pool's nr_hugepages"),
            "{why}"
        );
        assert_eq!(host.pool.read("nr_hugepages"), Some(1), "the other's");
        drop(other);
        assert_eq!(host.pool.read("nr_hugepages"), Some(0));
    }

    /// On the real pool, as root: reserves a 1 GiB page (when none is
    /// free), maps it, and puts the pool back. Skips, saying why, where
    /// that cannot be done (not root, no pdpe1gb, no contiguous 1 GiB).
    #[test]
    fn a_real_1_gib_page_is_reserved_mapped_and_put_back() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: not root");
            return;
        }
        let pool = Pool::system(GIGANTIC_KIB);
        let before = pool.read("nr_hugepages");
        let g = match Gigantic::acquire(64 * MIB, true) {
            Ok(g) => g,
            Err(why) => {
                eprintln!("skipped: {why}");
                assert_eq!(pool.read("nr_hugepages"), before, "put back");
                return;
            }
        };
        eprintln!("1 GiB page: {}", g.provenance());
        let r = g.region();
        assert_eq!(r.start as usize % GIGANTIC_PAGE, 0);
        assert_eq!(r.window(), GIGANTIC_PAGE);
        // SAFETY: both ends lie inside the mapped page.
        unsafe {
            std::ptr::write_volatile(r.start, 1);
            std::ptr::write_volatile(r.start.add(GIGANTIC_PAGE - 1), 2);
        }
        assert_eq!(r.kernel_page_kib(), Some(GIGANTIC_KIB));
        drop(g);
        assert_eq!(pool.read("nr_hugepages"), before, "the pool's old size");
        assert!(!pool.record.exists());
    }
}
