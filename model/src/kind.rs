//! The one list of experiment kinds.
//!
//! [`experiment_kinds!`] is invoked once, in `run.rs`, with every kind: its
//! variant, its results type, the name `collector run NAME` and the JSON
//! use, and the accessor on [`crate::RunFile`]. From that one list come the
//! [`crate::Results`] enum, [`crate::Kind`] with its names, and the typed
//! accessors. Every crate that does something per experiment matches on
//! `Kind` exhaustively, so a new kind here makes the compiler list each
//! place that must learn about it.

/// Defines `Results`, `Kind` and the `RunFile` accessors from one list.
#[macro_export]
#[doc(hidden)]
macro_rules! experiment_kinds {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) = $name:literal, $accessor:ident; )*) => {
        /// Typed results, one variant per experiment kind, written as
        /// `{"first-touch": {...}}`. (An externally tagged enum, unlike an
        /// internally tagged one, lets a load error name the exact inner
        /// field.)
        // A run holds one of each at most and is read a handful of times:
        // boxing the largest would only add noise to every match.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, $crate::json::FromJson)]
        pub enum Results {
            $( $(#[$doc])* #[serde(rename = $name)] $variant($ty), )*
        }

        /// An experiment kind, without its results.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $( $(#[$doc])* $variant, )*
        }

        impl Kind {
            /// Every kind, in the order of the list.
            pub const ALL: &'static [Kind] = &[$( Kind::$variant ),*];

            /// The name in run files and on the command line.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Kind::$variant => $name, )*
                }
            }

            pub fn from_name(name: &str) -> Option<Kind> {
                Kind::ALL.iter().copied().find(|k| k.name() == name)
            }
        }

        impl Results {
            pub fn kind(&self) -> Kind {
                match self {
                    $( Results::$variant(_) => Kind::$variant, )*
                }
            }
        }

        impl RunFile {
            $(
                #[doc = concat!("The `", $name, "` results, if the file has them.")]
                pub fn $accessor(&self) -> Option<&$ty> {
                    match self.results_of(Kind::$variant)? {
                        Results::$variant(r) => Some(r),
                        _ => None,
                    }
                }
            )*
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::{Kind, Results};

    #[test]
    fn names_are_unique_and_round_trip() {
        for k in Kind::ALL {
            assert_eq!(Kind::from_name(k.name()), Some(*k));
        }
        let mut names: Vec<_> = Kind::ALL.iter().map(|k| k.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Kind::ALL.len());
        assert_eq!(Kind::from_name("no-such"), None);
    }

    #[test]
    fn the_json_tag_is_the_name() {
        let text = r#"{"syscall": {"ops": [], "mitigations": []}}"#;
        let r: Results = crate::json::from_str(text).unwrap();
        assert_eq!(r.kind(), Kind::Syscall);
        let back = serde_json::to_value(&r).unwrap();
        assert!(back.get(Kind::Syscall.name()).is_some(), "{back}");
    }
}
