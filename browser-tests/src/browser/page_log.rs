//! What the current page did: the errors it logged or threw, the requests it
//! made, and whether any of them left its origin.

use anyhow::{bail, Context, Result};
use serde_json::Value;

use super::Browser;
use crate::{origin_of, same_origin};

/// What was drained from chromedriver's logs for the current page.
#[derive(Default)]
pub(super) struct PageLog {
    /// The origin requests may go to (`http://127.0.0.1:PORT` or `file://`).
    origin: String,
    /// `SEVERE` entries of the browser log.
    severe: Vec<String>,
    /// Request URLs from the performance log (`Network.requestWillBeSent`).
    requests: Vec<String>,
}

impl Browser {
    /// Starts the record of the page at `url`: what the logs held before
    /// belongs to the previous page and is dropped.
    pub(super) async fn start_page_log(&self, url: &str) -> Result<()> {
        self.drain_logs().await?;
        *self.page.lock().unwrap() = PageLog {
            origin: origin_of(url),
            ..PageLog::default()
        };
        Ok(())
    }

    /// Everything that went wrong on the current page: what the recorder
    /// caught (console.error/warn, uncaught errors, failed loads, unhandled
    /// rejections, CSP violations) and the browser log's SEVERE entries.
    pub async fn errors(&self) -> Result<Vec<String>> {
        self.drain_logs().await?;
        let recorded = self.eval("return window.__pwErrors || null;").await?;
        let mut errors: Vec<String> = match recorded.as_array() {
            Some(list) => list
                .iter()
                .map(|e| e.as_str().unwrap_or_default().to_string())
                .collect(),
            None => vec![format!(
                "the recorder script is not in this page ({}): its errors cannot be seen",
                self.driver()
                    .current_url()
                    .await
                    .map(|u| u.to_string())
                    .unwrap_or_default()
            )],
        };
        errors.extend(
            self.page
                .lock()
                .unwrap()
                .severe
                .iter()
                .map(|e| format!("browser log SEVERE: {e}")),
        );
        Ok(errors)
    }

    /// Every URL the current page requested: the recorder's resource
    /// entries and the performance log's requests, first seen first.
    pub async fn requests(&self) -> Result<Vec<String>> {
        self.drain_logs().await?;
        let recorded = self.eval("return window.__pwResources || [];").await?;
        let mut all: Vec<String> = self.page.lock().unwrap().requests.clone();
        all.extend(
            recorded
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|u| u.as_str().map(str::to_string)),
        );
        let mut seen = std::collections::HashSet::new();
        all.retain(|u| seen.insert(u.clone()));
        Ok(all)
    }

    /// Requests of the current page to anywhere but the page's own origin
    /// (`data:`, `blob:` and `about:` URLs count as own).
    pub async fn foreign_requests(&self) -> Result<Vec<String>> {
        let origin = self.page.lock().unwrap().origin.clone();
        Ok(self
            .requests()
            .await?
            .into_iter()
            .filter(|u| !same_origin(u, &origin))
            .collect())
    }

    /// Fails, listing everything, when the current page has any error or
    /// any request to another origin.
    pub async fn assert_clean(&self) -> Result<()> {
        let errors = self.errors().await?;
        let foreign = self.foreign_requests().await?;
        if !errors.is_empty() || !foreign.is_empty() {
            let url = self
                .driver()
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default();
            bail!("{url}: errors: {errors:#?}; requests to other origins: {foreign:#?}");
        }
        Ok(())
    }

    /// Moves chromedriver's browser and performance logs (which drain on
    /// read) into the current page's record.
    async fn drain_logs(&self) -> Result<()> {
        let handle = self.driver();
        let browser = handle
            .get_log("browser")
            .await
            .context("reading the browser log")?;
        let performance = handle
            .get_log("performance")
            .await
            .context("reading the performance log")?;
        let mut page = self.page.lock().unwrap();
        page.severe.extend(
            browser
                .into_iter()
                .filter(|e| e.level == "SEVERE")
                .map(|e| e.message),
        );
        for entry in performance {
            let Ok(v) = serde_json::from_str::<Value>(&entry.message) else {
                continue;
            };
            let msg = &v["message"];
            let url = match msg["method"].as_str() {
                Some("Network.requestWillBeSent") => &msg["params"]["request"]["url"],
                Some("Network.webSocketCreated") => &msg["params"]["url"],
                _ => continue,
            };
            if let Some(url) = url.as_str() {
                page.requests.push(url.to_string());
            }
        }
        Ok(())
    }
}
