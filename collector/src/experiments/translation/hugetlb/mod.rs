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
//!
//! [`pool`] reads a pool and keeps the record of a change; [`reservation`]
//! grows a pool and puts it back; [`attempt`] and [`gigantic`] are the two
//! uses.

mod attempt;
mod gigantic;
mod pool;
mod reservation;

pub use attempt::attempt;
pub use gigantic::Gigantic;
pub use pool::recover_left_over;
