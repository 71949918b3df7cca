//! What is laid over a chart: plain data, built from a loaded file
//! ([`super::file_overlay`]) or by the page, applied by [`super::replace`].

use pagewalk_model::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::spec::{Category, Series};

/// Series (and, for bar charts, the categories they need) to lay over a
/// chart.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Overlay {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<Category>,
    pub series: Vec<Series>,
}
