//! `collector inspect` against real processes this test starts and stops,
//! each built to show one symptom, and a quiet one that shows none. The
//! children are this test binary run again with `PAGEWALK_INSPECT_CHILD`
//! set: `child_entry` then becomes the child's whole life, and a normal
//! test run skips it.
//!
//! No timing is asserted: only counts, with thresholds far from what the
//! children produce (a fault loop takes thousands of faults per second; the
//! verdict threshold is 100/s).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use pagewalk_model::inspect::{InspectResults, Presence, Symptom};
use pagewalk_model::read_run;
use serde_json::Value;

const CHILD: &str = "PAGEWALK_INSPECT_CHILD";

/// What a child prints once its symptom is under way. The harness prints
/// `test child_entry ... ` before it on the same line, hence a marker
/// looked for anywhere in a line.
const READY: &str = "pagewalk-child-ready";

/// Not a test: the body of a child process, which the tests start with
/// `--ignored` so that a normal run lists it as ignored instead of
/// reporting a pass for it.
#[test]
#[ignore = "the body of a child process the other tests start; not a test of its own"]
fn child_entry() {
    let Ok(kind) = std::env::var(CHILD) else {
        eprintln!(
            "skipped: child_entry is the body of the children the other tests start, and \
             {CHILD} is unset, so this is no child"
        );
        return;
    };
    // If the test dies without cleaning up, so does the child.
    // SAFETY: a prctl on ourselves.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    children::run(&kind);
    // A child's whole life: it blocks or spins until the parent ends it,
    // and never hands back to the harness (which would report a pass).
    unreachable!("child {kind} returned to the harness");
}

mod children {
    use std::io::Write;
    use std::ptr;

    const MIB: usize = 1 << 20;

    fn ready() {
        println!("\n{}", super::READY);
        std::io::stdout().flush().unwrap();
    }

    /// Blocks until the parent closes our stdin (or kills us): no CPU, no
    /// faults, no wake-ups.
    fn block() -> ! {
        let mut buf = [0u8; 1];
        // SAFETY: reading into a valid one-byte buffer.
        unsafe { libc::read(0, buf.as_mut_ptr().cast(), 1) };
        std::process::exit(0)
    }

    fn map(bytes: usize) -> *mut u8 {
        // SAFETY: a fresh private anonymous mapping; checked below.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        p.cast()
    }

    fn touch(p: *mut u8, bytes: usize) {
        for off in (0..bytes).step_by(4096) {
            // SAFETY: inside the mapping.
            unsafe { p.add(off).write_volatile(1) };
        }
    }

    pub fn run(kind: &str) {
        match kind {
            "quiet" => {
                ready();
                block()
            }
            // Fresh 4 KiB pages, over and over: a minor fault per page.
            "touch" => {
                ready();
                loop {
                    let bytes = 16 * MIB;
                    let p = map(bytes);
                    // SAFETY: advice on our own mapping.
                    unsafe { libc::madvise(p.cast(), bytes, libc::MADV_NOHUGEPAGE) };
                    touch(p, bytes);
                    // SAFETY: unmapping what we mapped.
                    unsafe { libc::munmap(p.cast(), bytes) };
                }
            }
            // A disk file whose page cache is dropped before every pass,
            // read through a mapping: each pass starts with a major fault.
            "major" => {
                let path = std::env::var("PAGEWALK_INSPECT_FILE").unwrap();
                let file = std::fs::File::open(path).unwrap();
                let bytes = file.metadata().unwrap().len() as usize;
                use std::os::fd::AsRawFd;
                let fd = file.as_raw_fd();
                ready();
                loop {
                    // SAFETY: plain calls on an open fd and our own mapping.
                    unsafe {
                        libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED);
                        let p = libc::mmap(
                            ptr::null_mut(),
                            bytes,
                            libc::PROT_READ,
                            libc::MAP_SHARED,
                            fd,
                            0,
                        );
                        assert_ne!(p, libc::MAP_FAILED);
                        // No readahead: every page is its own fault.
                        libc::madvise(p, bytes, libc::MADV_RANDOM);
                        let mut sum = 0u8;
                        for off in (0..bytes).step_by(4096) {
                            sum = sum.wrapping_add(p.cast::<u8>().add(off).read_volatile());
                        }
                        std::hint::black_box(sum);
                        libc::munmap(p, bytes);
                    }
                }
            }
            // Spins on the first CPU it may use; two of these share it.
            "busy" => {
                // SAFETY: cpu_set_t is plain data; both calls get its real size.
                unsafe {
                    let size = size_of::<libc::cpu_set_t>();
                    let mut allowed: libc::cpu_set_t = std::mem::zeroed();
                    assert_eq!(libc::sched_getaffinity(0, size, &mut allowed), 0);
                    let first = (0..libc::CPU_SETSIZE as usize)
                        .find(|&c| libc::CPU_ISSET(c, &allowed))
                        .unwrap();
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    libc::CPU_SET(first, &mut set);
                    assert_eq!(libc::sched_setaffinity(0, size, &set), 0);
                }
                ready();
                let mut x = 1u64;
                loop {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            }
            // 64 MiB asked to be huge, touched once, then quiet. With
            // `nothp`, the process first disables THP for itself, so none
            // of it can be granted.
            "huge" | "nothp" => {
                if kind == "nothp" {
                    // SAFETY: a prctl on ourselves.
                    assert_eq!(
                        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) },
                        0
                    );
                }
                let bytes = 64 * MIB;
                // Over-map by 2 MiB and advise the aligned part only.
                let raw = map(bytes + 2 * MIB) as usize;
                let p = ((raw + 2 * MIB - 1) & !(2 * MIB - 1)) as *mut u8;
                // SAFETY: advice on our own mapping.
                assert_eq!(
                    unsafe { libc::madvise(p.cast(), bytes, libc::MADV_HUGEPAGE) },
                    0
                );
                touch(p, bytes);
                ready();
                block()
            }
            other => panic!("unknown child {other}"),
        }
    }
}

/// A running child; killed and reaped when dropped, whatever the test did.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(kind: &str, envs: &[(&str, &str)]) -> Running {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_entry",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, kind)
        .envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = lines.any(|l| l.is_ok_and(|l| l.contains(READY)));
    assert!(ready, "child {kind} never got ready");
    // Keep draining so a chatty harness never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Running(child)
}

fn collector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(args)
        .output()
        .unwrap()
}

/// `collector inspect PID --for 2s` into a fresh folder; the file read
/// back through the model.
fn inspect(pid: u32) -> InspectResults {
    inspect_raw(pid).0
}

/// [`inspect`], and the same file's `inspect` results as plain JSON, for
/// figures recomputed without the model.
fn inspect_raw(pid: u32) -> (InspectResults, Value) {
    let (r, raw) = inspect_as_raw(pid, None);
    assert!(r.ended_early.is_none(), "{:?}", r.ended_early);
    (r, raw)
}

/// [`inspect`], run as user `uid` when given (the test must be root).
fn inspect_as(pid: u32, uid: Option<u32>) -> InspectResults {
    inspect_as_raw(pid, uid).0
}

fn inspect_as_raw(pid: u32, uid: Option<u32>) -> (InspectResults, Value) {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_collector"));
    command.args([
        "inspect",
        &pid.to_string(),
        "--for",
        "2s",
        "--interval",
        "100ms",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    if let Some(uid) = uid {
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        command.uid(uid).gid(uid);
    }
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a run file");
    assert!(stdout.contains(&file.display().to_string()), "{stdout}");
    let run = read_run(&file).unwrap_or_else(|e| panic!("{e}"));
    let r = run.inspect().expect("inspect results").clone();
    assert_eq!(r.pid, pid);
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let raw = json["experiments"]
        .as_array()
        .expect("experiments in the run file")
        .iter()
        .find(|e| e["name"] == "inspect")
        .expect("an inspect experiment in the run file")["results"]["inspect"]
        .clone();
    assert_eq!(raw["pid"], pid, "the run file's inspect results");
    (r, raw)
}

fn presence(r: &InspectResults, s: Symptom) -> Presence {
    let v = r.verdict(s).unwrap();
    eprintln!("{s:?}: {:?}: {} {:?}", v.verdict, v.reason, v.evidence);
    v.verdict
}

fn evidence(r: &InspectResults, s: Symptom, what: &str) -> Option<f64> {
    let v = r.verdict(s)?;
    v.evidence.iter().find(|e| e.what == what).map(|e| e.value)
}

#[test]
fn a_quiet_process_shows_no_symptom() {
    let child = spawn("quiet", &[]);
    let r = inspect(child.0.id());
    for s in [
        Symptom::FirstTouchFaults,
        Symptom::PeriodicSpike,
        Symptom::Preemption,
        Symptom::RareStall,
        Symptom::HugePagesDenied,
    ] {
        assert_eq!(presence(&r, s), Presence::Absent, "{s:?}");
    }
    // The rest are absent or, where /proc cannot see them (the dTLB, a
    // frequency a VM hides), cannot tell with a reason; never present.
    for v in &r.verdicts {
        assert_ne!(v.verdict, Presence::Present, "{v:?}");
        if v.verdict == Presence::CannotTell {
            assert!(!v.reason.is_empty());
        }
    }
    assert_eq!(r.verdicts.len(), Symptom::ALL.len());
    assert!(r.samples.len() >= 2);
}

#[test]
fn fresh_memory_shows_minor_faults() {
    let child = spawn("touch", &[]);
    let r = inspect(child.0.id());
    assert_eq!(presence(&r, Symptom::FirstTouchFaults), Presence::Present);
    // Thousands per second in practice; 100/s is the verdict's threshold.
    let faults = evidence(&r, Symptom::FirstTouchFaults, "minor faults").unwrap();
    assert!(faults >= 1000.0, "{faults}");
}

#[test]
fn a_dropped_page_cache_shows_major_faults() {
    // A real disk file (the target folder), not tmpfs: tmpfs pages cannot
    // be dropped, so they would never fault from storage.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    if on_tmpfs(dir.path()) {
        eprintln!("skipped: the target folder is on tmpfs; its pages never come from storage");
        return;
    }
    let path = dir.path().join("cold.bin");
    std::fs::write(&path, vec![7u8; 4 << 20]).unwrap();
    std::fs::File::open(&path).unwrap().sync_all().unwrap();
    let child = spawn(
        "major",
        &[("PAGEWALK_INSPECT_FILE", path.to_str().unwrap())],
    );
    let r = inspect(child.0.id());
    assert_eq!(presence(&r, Symptom::RareStall), Presence::Present);
    let major = evidence(&r, Symptom::RareStall, "major faults");
    assert!(major.is_some_and(|n| n >= 1.0), "{major:?}");
}

#[test]
fn a_process_that_exits_midway_is_said_and_still_judged() {
    // Exits after a second of a two-second window; not reaped until the
    // end, so it turns into a zombie, which inspect reads as "exited".
    let child = Running(Command::new("sleep").arg("1").spawn().unwrap());
    let r = inspect_as(child.0.id(), None);
    let why = r.ended_early.as_deref().unwrap_or_default();
    assert!(why.contains("exited"), "{why}");
    assert!(r.samples.len() >= 2, "{}", r.samples.len());
    // Verdicts over what was seen (a starting `sleep` may still fault its
    // binary in, so no particular verdict is asserted).
    assert_eq!(r.verdicts.len(), Symptom::ALL.len());
    assert!(
        r.unreadable["numa_maps"].contains("exited"),
        "{:?}",
        r.unreadable
    );
}

fn on_tmpfs(path: &Path) -> bool {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid path and a zeroed statfs to fill.
    unsafe {
        let mut fs: libc::statfs = std::mem::zeroed();
        libc::statfs(c.as_ptr(), &mut fs) == 0 && fs.f_type == libc::TMPFS_MAGIC
    }
}

#[test]
fn another_users_process_is_judged_where_proc_allows() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    // As root: watch our own child as `nobody`. Otherwise: watch PID 1,
    // which belongs to root.
    let child = root.then(|| spawn("quiet", &[]));
    let r = match &child {
        Some(c) => inspect_as(c.0.id(), Some(65534)),
        None => inspect_as(1, None),
    };
    // smaps needs ptrace-read permission: refused, and said.
    assert!(
        r.unreadable.contains_key("smaps_rollup"),
        "{:?}",
        r.unreadable
    );
    assert_eq!(presence(&r, Symptom::HugePagesDenied), Presence::CannotTell);
    let v = r.verdict(Symptom::HugePagesDenied).unwrap();
    assert!(v.reason.contains("smaps"), "{}", v.reason);
    // What anyone may read (stat, schedstat) is still judged.
    assert_ne!(
        presence(&r, Symptom::FirstTouchFaults),
        Presence::CannotTell
    );
    assert_ne!(presence(&r, Symptom::Preemption), Presence::CannotTell);
}

#[test]
fn two_busy_processes_on_one_cpu_wait_for_it() {
    let a = spawn("busy", &[]);
    let _b = spawn("busy", &[]);
    let r = inspect(a.0.id());
    assert_eq!(presence(&r, Symptom::Preemption), Presence::Present);
    // Sharing one CPU with a twin: about half of its runnable time waiting
    // (more on a loaded machine); the threshold is a tenth.
    let share = evidence(
        &r,
        Symptom::Preemption,
        "share of runnable time spent waiting",
    )
    .unwrap();
    assert!(share >= 0.2, "{share}");
}

const THP_ENABLED: &str = "/sys/kernel/mm/transparent_hugepage/enabled";

/// The THP mode in force (`always`, `madvise`, `never`), as this test reads
/// it from sysfs itself; `None` without THP.
fn thp_setting() -> Option<String> {
    let text = std::fs::read_to_string(THP_ENABLED).ok()?;
    text.split_whitespace()
        .find_map(|w| w.strip_prefix('[')?.strip_suffix(']'))
        .map(str::to_string)
}

/// KiB after `name:` on the lines of `text` (summed when several).
fn kib_field(text: &str, name: &str) -> u64 {
    text.lines()
        .filter_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(|v| v.split_whitespace().next().unwrap().parse::<u64>().unwrap())
        .sum()
}

/// `(Anonymous, AnonHugePages)` KiB of the mappings of `pid` that asked for
/// huge pages (`hg` in VmFlags: the child's MADV_HUGEPAGE region), as this
/// test reads `/proc/PID/smaps` itself.
fn advised_kib(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps")).unwrap();
    let (mut total, mut block) = ((0, 0), String::new());
    for line in text.lines() {
        if let Some(flags) = line.strip_prefix("VmFlags:") {
            if flags.split_whitespace().any(|f| f == "hg") {
                total.0 += kib_field(&block, "Anonymous");
                total.1 += kib_field(&block, "AnonHugePages");
            }
            block.clear();
        } else {
            block.push_str(line);
            block.push('\n');
        }
    }
    total
}

/// `AnonHugePages` KiB of the whole process, from `/proc/PID/smaps_rollup`.
fn rollup_huge_kib(pid: u32) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap();
    kib_field(&text, "AnonHugePages")
}

/// The verdict on `symptom` in the raw results, and its evidence by name.
fn raw_verdict<'a>(raw: &'a Value, symptom: &str) -> &'a Value {
    raw["verdicts"]
        .as_array()
        .expect("verdicts in the run file")
        .iter()
        .find(|v| v["symptom"] == symptom)
        .unwrap_or_else(|| panic!("no {symptom} verdict in the run file"))
}

fn raw_evidence(verdict: &Value, what: &str) -> Option<f64> {
    verdict["evidence"]
        .as_array()?
        .iter()
        .find(|e| e["what"] == what)?["value"]
        .as_f64()
}

/// The child asks for 64 MiB of huge pages and touches all of it. The
/// figures in the run file are held against what this test reads from the
/// child's own `/proc/PID/smaps` before and after the window (the region
/// is quiet, but khugepaged may still collapse some of it in between, so
/// each figure must lie between the two readings), and the verdict against
/// the share of the region this test saw in huge pages.
#[test]
fn huge_page_share_is_reported() {
    const REGION_KIB: u64 = 64 * 1024;
    let Some(thp) = thp_setting() else {
        eprintln!("skipped: {THP_ENABLED} is absent: this kernel has no THP, so no share");
        return;
    };
    let child = spawn("huge", &[]);
    let pid = child.0.id();
    let (before, rollup_before) = (advised_kib(pid), rollup_huge_kib(pid));
    let (r, raw) = inspect_raw(pid);
    let (after, rollup_after) = (advised_kib(pid), rollup_huge_kib(pid));
    let between = |x: f64, a: u64, b: u64| x >= a.min(b) as f64 - 0.5 && x <= a.max(b) as f64 + 0.5;
    assert_eq!(
        raw["settings"]["thp_enabled"], thp,
        "settings.thp_enabled against {THP_ENABLED}"
    );
    let verdict = raw_verdict(&raw, "huge-pages-denied");
    let eligible = raw_evidence(verdict, "anonymous memory eligible for THP");
    if thp == "never" {
        assert_eq!(
            eligible,
            Some(0.0),
            "THP `never`: eligible memory in the huge-pages-denied evidence"
        );
        eprintln!(
            "skipped: THP is `never` here, so none of the region can be huge and there is no \
             share to check (only that nothing was eligible)"
        );
        return;
    }
    // The region is 64 MiB, all of it touched.
    assert!(
        before.0 >= REGION_KIB && after.0 >= REGION_KIB,
        "the child's advised memory, Anonymous KiB before and after: {before:?} {after:?}"
    );
    let eligible = eligible.expect("eligible memory in the huge-pages-denied evidence");
    if thp == "madvise" {
        // Only the advised region may be huge.
        assert!(
            between(eligible, before.0, after.0),
            "THP `madvise`: eligible {eligible} KiB in the evidence, the advised mappings' \
             Anonymous {} and {} KiB in smaps",
            before.0,
            after.0
        );
    } else {
        assert!(
            eligible >= REGION_KIB as f64,
            "THP `{thp}`: eligible {eligible} KiB, less than the child's 64 MiB region"
        );
    }
    // What the collector found huge of the eligible memory: at least the
    // advised region's huge pages, at most all of the process's.
    let share = raw_evidence(verdict, "huge-page share of eligible memory")
        .expect("a huge-page share in the huge-pages-denied evidence");
    assert!((0.0..=1.0).contains(&share), "share {share}");
    let huge_kib = share * eligible;
    if thp == "madvise" {
        assert!(
            between(huge_kib, before.1, after.1),
            "THP `madvise`: share {share} x eligible {eligible} KiB = {huge_kib} KiB huge; the \
             advised mappings' AnonHugePages {} and {} KiB in smaps",
            before.1,
            after.1
        );
    } else {
        assert!(
            huge_kib >= before.1.min(after.1) as f64 - 0.5
                && huge_kib <= rollup_before.max(rollup_after) as f64 + 0.5,
            "THP `{thp}`: share {share} x eligible {eligible} KiB = {huge_kib} KiB huge; the \
             advised mappings had {before:?}..{after:?}, the process {rollup_before}..\
             {rollup_after} KiB"
        );
    }
    // The last sample's AnonHugePages is smaps_rollup's, and the evidence's.
    let last = raw["samples"]
        .as_array()
        .expect("samples in the run file")
        .last()
        .expect("at least one sample");
    let last_huge = last["anon_huge_kib"]
        .as_f64()
        .expect("anon_huge_kib in the last sample");
    assert!(
        between(last_huge, rollup_before, rollup_after),
        "the last sample's anon_huge_kib {last_huge} KiB; smaps_rollup read {rollup_before} and \
         {rollup_after} KiB"
    );
    assert_eq!(
        raw_evidence(verdict, "AnonHugePages"),
        Some(last_huge),
        "the AnonHugePages evidence against the last sample"
    );
    // The symptom table: present when less than half of the memory that
    // could be huge is. Judged on the region as this test saw it, with a
    // margin either side of half for what else the collector counts as
    // eligible.
    let granted = |(anon, huge): (u64, u64)| huge as f64 / anon as f64;
    let (lo, hi) = (
        granted(before).min(granted(after)),
        granted(before).max(granted(after)),
    );
    let expected = if lo >= 0.6 {
        "absent"
    } else if hi < 0.4 {
        "present"
    } else {
        eprintln!(
            "skipped (the verdict only): {lo:.2}..{hi:.2} of the region came in huge pages, \
             too close to half to say which side the collector's figure falls"
        );
        return;
    };
    presence(&r, Symptom::HugePagesDenied);
    assert_eq!(
        verdict["verdict"], expected,
        "huge-pages-denied with {lo:.2}..{hi:.2} of the 64 MiB region in huge pages \
         ({before:?} and {after:?} KiB Anonymous, AnonHugePages): {verdict}"
    );
}

#[test]
fn huge_pages_refused_to_the_process_are_present() {
    let Some(thp) = thp_setting() else {
        eprintln!("skipped: {THP_ENABLED} is absent: this kernel has no THP to refuse");
        return;
    };
    if thp == "never" {
        eprintln!("skipped: THP is `never` here, so nothing is refused that would be granted");
        return;
    }
    let child = spawn("nothp", &[]);
    let pid = child.0.id();
    let (r, raw) = inspect_raw(pid);
    // The child disabled THP for itself: of its advised 64 MiB, as this
    // test reads smaps, none is huge, so the share is nought.
    let (anon, huge) = advised_kib(pid);
    assert!(
        anon >= 64 * 1024 && huge == 0,
        "the nothp child's advised mappings: {anon} KiB Anonymous, {huge} KiB AnonHugePages"
    );
    let verdict = raw_verdict(&raw, "huge-pages-denied");
    assert_eq!(
        raw_evidence(verdict, "huge-page share of eligible memory"),
        Some(0.0),
        "the nothp child's huge-page share: {verdict}"
    );
    assert_eq!(presence(&r, Symptom::HugePagesDenied), Presence::Present);
    assert_eq!(verdict["verdict"], "present", "{verdict}");
    let v = r.verdict(Symptom::HugePagesDenied).unwrap();
    assert!(v.reason.contains("PR_SET_THP_DISABLE"), "{}", v.reason);
}

/// Stderr of a command that must fail with `code` (1 for inspect's own
/// errors, 2 for clap's refusal of an argument).
fn error_of(code: i32, args: &[&str]) -> String {
    let out = collector(args);
    assert_eq!(out.status.code(), Some(code), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn missing_exited_and_zero_length_are_clear_errors() {
    // Above pid_max no process can exist.
    let mut max = String::new();
    std::fs::File::open("/proc/sys/kernel/pid_max")
        .unwrap()
        .read_to_string(&mut max)
        .unwrap();
    let missing = (max.trim().parse::<u64>().unwrap() + 1).to_string();
    let e = error_of(1, &["inspect", &missing, "--for", "1s"]);
    assert!(e.contains("no process"), "{e}");

    // Exited and reaped: gone.
    let mut done = Command::new("true").spawn().unwrap();
    let pid = done.id().to_string();
    done.wait().unwrap();
    if Path::new(&format!("/proc/{pid}")).exists() {
        eprintln!(
            "skipped (the reaped-process case only): PID {pid} was taken by another process \
             before it could be inspected"
        );
    } else {
        let e = error_of(1, &["inspect", &pid, "--for", "1s"]);
        assert!(e.contains("no process"), "{e}");
    }

    // Exited, not reaped yet: a zombie, said as such.
    let zombie = Command::new("true").spawn().unwrap();
    let pid = zombie.id();
    let stat = format!("/proc/{pid}/stat");
    while !std::fs::read_to_string(&stat).is_ok_and(|s| s.contains(") Z ")) {
        std::thread::yield_now();
    }
    let e = error_of(1, &["inspect", &pid.to_string(), "--for", "1s"]);
    assert!(e.contains("exited"), "{e}");
    drop(Running(zombie));

    let e = error_of(2, &["inspect", "1", "--for", "0"]);
    assert!(e.contains("longer than zero"), "{e}");
}
