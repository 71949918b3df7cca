//! The book's parts are the model's experiment groups: each group's title
//! is a part heading of `book/SUMMARY.md`, so the group is named in one
//! place (`pagewalk_model::Group`) and the table of contents follows it.

use pagewalk_model::{Group, Kind};

#[test]
fn every_group_is_a_part_of_the_book() {
    let summary =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../book/SUMMARY.md"))
            .unwrap();
    let parts: Vec<&str> = summary
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .collect();
    for g in Group::ALL {
        assert!(
            parts.contains(&g.title()),
            "book/SUMMARY.md has no part titled {:?} (parts: {parts:?})",
            g.title()
        );
    }
}

#[test]
fn every_kind_is_in_one_group() {
    let grouped: usize = Group::ALL.iter().map(|g| g.kinds().count()).sum();
    assert_eq!(grouped, Kind::ALL.len());
}
