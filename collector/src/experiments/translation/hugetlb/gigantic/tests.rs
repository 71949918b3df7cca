//! [`super::Gigantic`] on a fake host (a cpuinfo, a pool in a folder of its
//! own, a guard and an mmap a test can make refuse), and once on the real
//! 1 GiB pool as root.

use super::super::pool::fake_pool_of;
use super::*;
use crate::guard::Allowance;

const MIB: u64 = 1 << 20;

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
