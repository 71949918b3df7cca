//! What the browser shows the page as: the reader's theme, scripts off,
//! a narrow screen, a CSS media type.

use anyhow::{Context, Result};
use serde_json::{json, Value};
use thirtyfour::prelude::*;

use super::Browser;

/// How [`Browser::switch_theme`] switched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeSwitch {
    /// Through mdBook's theme menu, as a reader does.
    ByMenu,
    /// The page had no theme menu: the class on `<html>` was set directly.
    ByClass,
}

impl Browser {
    /// Switches the mdBook theme (`light`, `rust`, `coal`, `navy`, `ayu`) the
    /// way a reader does: the theme button, then the theme's entry, and
    /// waits for `<html>` to carry the theme's class. Returns
    /// [`ThemeSwitch::ByClass`] when the page has no theme menu: then it sets
    /// the class the way mdBook's script would, so a page built with a custom
    /// template can still be tested, and says so on stderr.
    pub async fn switch_theme(&self, theme: &str) -> Result<ThemeSwitch> {
        let driver = self.driver();
        let how = match driver.find(By::Id("mdbook-theme-toggle")).await {
            Ok(toggle) => {
                let list_open = "(() => { const l = document.getElementById('mdbook-theme-list');
                                          return !!l && getComputedStyle(l).display !== 'none'; })()";
                toggle
                    .click()
                    .await
                    .context("clicking #mdbook-theme-toggle")?;
                self.wait_for(list_open)
                    .await
                    .context("the theme list did not open")?;
                driver
                    .find(By::Id(format!("mdbook-theme-{theme}")))
                    .await
                    .with_context(|| format!("no #mdbook-theme-{theme} in the theme list"))?
                    .click()
                    .await
                    .with_context(|| format!("clicking #mdbook-theme-{theme}"))?;
                // mdBook leaves the list open after a choice, and closing it
                // moves the focus back to the button: close it now, as a
                // reader moving on would, so it steals no focus later.
                toggle
                    .click()
                    .await
                    .context("clicking #mdbook-theme-toggle to close the list")?;
                self.wait_for(&format!("!{list_open}"))
                    .await
                    .context("the theme list did not close")?;
                ThemeSwitch::ByMenu
            }
            Err(_) => {
                eprintln!("switch_theme: no #mdbook-theme-toggle in the page; setting <html class> directly");
                self.eval_with(
                    "const html = document.documentElement;
                     for (const t of ['light', 'rust', 'coal', 'navy', 'ayu']) html.classList.remove(t);
                     html.classList.add(arguments[0]);
                     return null;",
                    vec![json!(theme)],
                )
                .await?;
                ThemeSwitch::ByClass
            }
        };
        self.wait_for(&format!(
            "document.documentElement.classList.contains({})",
            json!(theme)
        ))
        .await
        .with_context(|| format!("<html> did not get the class `{theme}`"))?;
        Ok(how)
    }

    /// Turns the page's own scripts off (or back on) for the pages loaded
    /// next: what a reader without JavaScript sees. The recorder and
    /// [`Browser::eval`] still work.
    pub async fn set_scripts_disabled(&self, disabled: bool) -> Result<()> {
        self.emulate(
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": disabled }),
        )
        .await
    }

    /// Emulates a screen `width` px wide and 900 high; below 600 px as a
    /// phone (mobile viewport, so the page's `<meta name="viewport">` rules).
    pub async fn set_width(&self, width: u32) -> Result<()> {
        self.emulate(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600 }),
        )
        .await
    }

    /// Emulates a CSS media type (`print`, `screen`; empty for none).
    pub async fn emulate_media(&self, media: &str) -> Result<()> {
        self.emulate("Emulation.setEmulatedMedia", json!({ "media": media }))
            .await
    }

    /// Sends the DevTools command `method` (one of the `Emulation.*`
    /// overrides) with `params`; an error names the command.
    async fn emulate(&self, method: &str, params: Value) -> Result<()> {
        self.driver()
            .cdp()
            .send_raw(method, params)
            .await
            .context(method.to_string())?;
        Ok(())
    }
}
