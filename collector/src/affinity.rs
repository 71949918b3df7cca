//! CPU affinity of the calling thread and the kernel's CPU-list format
//! (`0-3,8`). Pinning is done per thread, so the collector's main thread
//! keeps the affinity it was started with.

use std::io;

/// CPUs the calling thread may run on.
pub fn allowed() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu < CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// Restricts the calling thread to `cpus`.
pub fn pin_this_thread(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: as above; CPU_SET only writes inside the set for cpu < CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The CPU the calling thread is on right now.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: no preconditions.
    usize::try_from(unsafe { libc::sched_getcpu() }).ok()
}

/// `0-3,8,10-11` -> [0, 1, 2, 3, 8, 10, 11].
pub fn parse_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().ok()?..=b.parse().ok()?),
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// The inverse of [`parse_list`], with runs collapsed.
pub fn format_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(
            parse_list("0-3,8,10-11\n"),
            Some(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(format_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(parse_list(""), Some(vec![]));
        assert_eq!(parse_list("x"), None);
    }

    #[test]
    fn a_thread_pins_itself() {
        let cpus = allowed().unwrap();
        let last = *cpus.last().unwrap();
        std::thread::spawn(move || {
            pin_this_thread(&[last]).unwrap();
            assert_eq!(allowed().unwrap(), vec![last]);
            assert_eq!(current_cpu(), Some(last));
        })
        .join()
        .unwrap();
        assert_eq!(allowed().unwrap(), cpus, "other threads keep theirs");
    }
}
