//! A real browser against `site serve`: Debian's chromium, headless.
//! Loads the home page, a provider page and the methodology page, checks
//! that the page script ran without errors (it records errors and CSP
//! violations on `<html data-js-errors>`; the browser reports console
//! messages, uncaught exceptions, failed loads and dialogs), that tables
//! and plots are there, and that markup in result strings stayed text;
//! saves screenshots to target/screenshots/. At 390, 1280 and 1920 px wide,
//! checks that no page scrolls sideways and that plot text is drawn at
//! 12 px or more (and saves the home page at each), and that the overview's
//! speed-against-price chart is there, fits its box and links its points
//! to runner pages that are there. Also checks that a broken
//! input shows the error page, in the open tab too, and that fixing it
//! recovers.
//!
//! How chromium is driven, and why:
//!
//! - One chromium for the whole test, driven over the DevTools protocol on
//!   `--remote-debugging-pipe` (JSON messages ended by a NUL byte, on the
//!   child's file descriptors 3 and 4). No websocket client to depend on,
//!   no port to find, and the test sees console messages and exceptions as
//!   events rather than scraping stderr. The earlier design started one
//!   `chromium --dump-dom` or `--screenshot` per page and killed it after
//!   45 s when it had not exited; that made the test slow (56–102 s) and
//!   flaky.
//! - Why chromium did not exit: `site serve` answered with tiny_http 0.12,
//!   whose connection thread pool could leave a newly accepted connection
//!   queued behind connections that stay open, so a request on it was
//!   never answered and the page never finished loading. `site serve` now
//!   serves every connection at once (hyper, one task per connection), so
//!   chromium keeps its connections alive here as it does anywhere; the
//!   `serve` test checks this without a browser.
//! - Every wait has a deadline; one that passes names the requests still
//!   open, so a hang reads as a failure with a cause, not a stall.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// The longest any one browser step may take.
const STEP: Duration = Duration::from_secs(30);

/// `GET path` → (status, body).
pub(crate) fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let status = text.split(' ').nth(1)?.parse().ok()?;
    Some((status, text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default()))
}

pub(crate) fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One headless chromium with one tab, driven over the DevTools protocol.
/// Killed when dropped, passed or not.
pub(crate) struct Browser {
    child: Child,
    to: ChildStdin,
    from: Receiver<Value>,
    /// The tab's session.
    session: String,
    next_id: u64,
    /// Events since the last navigation.
    events: Vec<Value>,
    /// chromium's stderr.
    log: PathBuf,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub(crate) fn start(log: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        // The shell hands the pipes on as the descriptors 3 (commands in)
        // and 4 (replies and events out) that --remote-debugging-pipe uses.
        let mut child = Command::new("sh")
            .args(["-c", "exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null", CHROMIUM])
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(File::create(log).unwrap())
            .spawn()
            .unwrap();
        let to = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, from) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut message = Vec::new();
            while out.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                if message.pop() != Some(0) {
                    break;
                }
                let value = serde_json::from_slice(&message).expect("a DevTools message that is not JSON");
                if tx.send(value).is_err() {
                    break;
                }
                message.clear();
            }
        });
        let mut browser = Browser {
            child,
            to,
            from,
            session: String::new(),
            next_id: 0,
            events: Vec::new(),
            log: log.to_path_buf(),
            _profile: profile,
        };
        let target = browser.command(None, "Target.createTarget", json!({"url": "about:blank"})).unwrap();
        let attached = browser
            .command(None, "Target.attachToTarget", json!({"targetId": target["targetId"], "flatten": true}))
            .unwrap();
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in ["Page.enable", "Runtime.enable", "Log.enable", "Network.enable"] {
            browser.call(domain, json!({}));
        }
        browser.resize(1280);
        browser
    }

    /// Sets the window `width_px` wide (1600 px high); below 600 px as a
    /// phone, which honours the page's viewport meta tag.
    pub(crate) fn resize(&mut self, width_px: u32) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width_px, "height": 1600, "deviceScaleFactor": 1, "mobile": width_px < 600}),
        );
    }

    /// The next message, or a panic that says what was awaited and which
    /// requests were still open.
    fn receive(&mut self, deadline: Instant, what: &str) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.from.recv_timeout(left) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => {
                panic!("chromium: no {what} within {STEP:?}; requests still open: {:?}", self.open_requests())
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("chromium exited while waiting for {what}:\n{}", std::fs::read_to_string(&self.log).unwrap())
            }
        }
    }

    /// Sends a command to the browser (`session` None) or to a tab and
    /// waits for its reply; keeps the events that come in meanwhile.
    fn command(&mut self, session: Option<&str>, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).and_then(|()| self.to.flush()).unwrap();
        let deadline = Instant::now() + STEP;
        loop {
            let mut message = self.receive(deadline, &format!("reply to {method}"));
            if message["id"] == id {
                return match message.get_mut("error") {
                    Some(error) => Err(error.take()),
                    None => Ok(message["result"].take()),
                };
            }
            self.events.push(message);
        }
    }

    /// A command to the tab that must succeed.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.command(Some(&session), method, params).unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// Evaluates `expression` in the tab; `Err` while a navigation replaces
    /// the page or when the expression throws.
    pub(crate) fn eval(&mut self, expression: &str) -> Result<Value, Value> {
        let session = self.session.clone();
        let mut result =
            self.command(Some(&session), "Runtime.evaluate", json!({"expression": expression, "returnByValue": true}))?;
        match result.get_mut("exceptionDetails") {
            Some(details) => Err(details.take()),
            None => Ok(result["result"]["value"].take()),
        }
    }

    /// Opens `url` and waits for its `load` event; returns the DOM as the
    /// page script left it (what `chromium --dump-dom` prints).
    pub(crate) fn load(&mut self, url: &str) -> String {
        self.events.clear();
        let navigated = self.call("Page.navigate", json!({"url": url}));
        assert!(navigated.get("errorText").is_none(), "{url}: {navigated}");
        let deadline = Instant::now() + STEP;
        while !self.events.iter().any(|e| e["method"] == "Page.loadEventFired") {
            let event = self.receive(deadline, &format!("load event for {url}"));
            self.events.push(event);
        }
        let dom = self.eval("document.documentElement.outerHTML").unwrap();
        dom.as_str().unwrap().to_string()
    }

    /// Console messages, uncaught exceptions, log entries (failed loads,
    /// CSP violations) and dialogs since the last navigation.
    pub(crate) fn problems(&mut self) -> Vec<String> {
        // Anything the page did up to now has been reported by the time a
        // round trip comes back.
        self.eval("0").unwrap();
        self.events
            .iter()
            .filter_map(|e| {
                let p = &e["params"];
                match e["method"].as_str()? {
                    "Runtime.consoleAPICalled" => Some(format!("console.{}: {}", p["type"], p["args"])),
                    "Runtime.exceptionThrown" => Some(format!("exception: {}", p["exceptionDetails"])),
                    "Log.entryAdded" => Some(format!("log: {}", p["entry"])),
                    "Page.javascriptDialogOpening" => Some(format!("dialog: {}", p["message"])),
                    _ => None,
                }
            })
            .collect()
    }

    /// Requests sent since the last navigation that neither finished nor
    /// failed.
    fn open_requests(&self) -> Vec<String> {
        let done = |id: &Value| {
            self.events.iter().any(|e| {
                matches!(e["method"].as_str(), Some("Network.loadingFinished" | "Network.loadingFailed"))
                    && &e["params"]["requestId"] == id
            })
        };
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent" && !done(&e["params"]["requestId"]))
            .map(|e| e["params"]["request"]["url"].to_string())
            .collect()
    }

    pub(crate) fn screenshot(&mut self, path: &Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        std::fs::write(path, base64(shot["data"].as_str().unwrap())).unwrap();
    }

    /// Waits until `expression` is true in the tab, across reloads.
    pub(crate) fn wait_for(&mut self, what: &str, expression: &str) {
        let start = Instant::now();
        while self.eval(expression) != Ok(json!(true)) {
            assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what} in chromium");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Closes the browser and waits for it to exit.
    pub(crate) fn close(mut self) {
        let _ = self.command(None, "Browser.close", json!({}));
        let start = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            assert!(start.elapsed() < STEP, "chromium did not exit after Browser.close");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Decodes standard base64 (what `Page.captureScreenshot` returns).
fn base64(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut bits, mut count) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {:?}", c as char),
        };
        bits = (bits << 6 | u32::from(v)) & 0xffff;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    out
}

#[test]
fn base64_decodes() {
    assert_eq!(base64("aGVsbG8gd29ybGQ="), b"hello world");
    assert_eq!(base64("iVBORw0KGgo="), b"\x89PNG\r\n\x1a\n");
    assert_eq!(base64("+/8="), [0xfb, 0xff]);
}

/// The window widths a page must fit: a phone, a laptop, a desktop.
const WIDTHS_PX: [u32; 3] = [390, 1280, 1920];
/// The height of a phone's screen 390 px wide (CSS px).
const PHONE_HEIGHT_PX: f64 = 844.0;
/// The smallest plot text, px as drawn on the screen.
const MIN_PLOT_TEXT_PX: f64 = 12.0;

/// Issue 14: at each of `WIDTHS_PX`, no page scrolls sideways (a table may
/// scroll inside its own box), and plot text is drawn at
/// `MIN_PLOT_TEXT_PX` or more: the smallest `font-size` in the SVG, scaled
/// by the width the page shows the plot at over the SVG's own width.
/// Saves the home and runner pages' screenshots at each width (home-390.png,
/// runner-390.png, …).
fn fits_every_width(browser: &mut Browser, port: u16, shots: &Path) {
    let base = format!("http://127.0.0.1:{port}");
    let home = browser.load(&format!("{base}/"));
    // A table's page with every row, and a runner's page, as the home page
    // links them.
    let linked = |prefix: &str| {
        let at = home.find(&format!("href=\"{prefix}")).unwrap_or_else(|| panic!("the home page links no {prefix}"));
        home[at + 6..].split('"').next().unwrap().to_string()
    };
    let pages = [
        ("home", "/".to_string()),
        ("full table", linked("/tables/")),
        ("runner", linked("/runners/")),
        ("provider", "/providers/ubicloud/".into()),
        ("methodology", "/methodology/".into()),
        ("estimate", "/estimate/".into()),
        ("overview", "/overview/".into()),
        ("overview by cost", "/overview/by-cost/".into()),
        ("overview by cost of all-core work", "/overview/by-allcore-cost/".into()),
        ("build-cache", "/build-cache/".into()),
        ("build-cache document", "/build-cache/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238/".into()),
    ];
    let mut svgs = std::collections::HashMap::new();
    let mut resolved = std::collections::HashSet::new();
    for width in WIDTHS_PX {
        browser.resize(width);
        for (name, path) in &pages {
            browser.load(&format!("{base}{path}"));
            // On a phone a page wider than the screen also widens the
            // window (the layout viewport), so both must stay at `width`.
            let fit = browser
                .eval(&format!(
                    "(() => {{
                       const inBox = e => {{ for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
                         if (getComputedStyle(a).overflowX !== 'visible') return true; return false; }};
                       const name = e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '');
                       // Elements past the edge, and those whose text overflows them.
                       const wide = Array.from(document.body.querySelectorAll('*')).filter(e => !inBox(e) &&
                         (e.getBoundingClientRect().right > {width}.5 ||
                          e.scrollWidth > e.clientWidth && getComputedStyle(e).overflowX === 'visible'))
                         .slice(-5).map(e => name(e) + ': ' + e.textContent.slice(0, 60));
                       return [document.documentElement.scrollWidth, innerWidth, wide];
                     }})()"
                ))
                .unwrap();
            let (page_px, window_px) = (fit[0].as_u64().unwrap(), fit[1].as_u64().unwrap());
            assert!(
                page_px <= window_px && window_px == u64::from(width),
                "{name} ({path}) at {width} px: the page is {page_px} px wide in a {window_px}-px window and \
                 scrolls sideways; elements past {width} px or overflowing: {}",
                fit[2]
            );
            // The comparison tables fit a laptop's page without scrolling
            // in their boxes (issue 14: disk, cache and internet were cut off).
            if *name == "home" && width >= 1280 {
                let cut = browser
                    .eval(
                        "Array.from(document.querySelectorAll('.scroll')).filter(b => b.scrollWidth > b.clientWidth)
                           .map(b => b.firstElementChild.id + ': ' + b.scrollWidth + ' px in ' + b.clientWidth)",
                    )
                    .unwrap();
                assert_eq!(cut, json!([]), "home at {width} px: tables cut off");
            }
            // Issue 57: on a phone every table wider than its box shows
            // that it scrolls (the box's shadows), and the home page has one.
            if width == 390 {
                let boxes = browser
                    .eval(
                        "Array.from(document.querySelectorAll('.scroll')).filter(b => b.scrollWidth > b.clientWidth)
                           .map(b => [b.firstElementChild.id,
                                      getComputedStyle(b).backgroundImage.includes('radial-gradient')])",
                    )
                    .unwrap();
                let boxes = boxes.as_array().unwrap();
                assert!(*name != "home" || !boxes.is_empty(), "home at {width} px: no table scrolls");
                for b in boxes {
                    assert_eq!(b[1], json!(true), "{name} at {width} px: {} scrolls without a cue", b[0]);
                }
            }
            // Issue 49: the first screen of a laptop (1280 × 800) holds a
            // leader line for every stage that ranks a row.
            if *name == "home" && width == 1280 {
                let lines = browser
                    .eval(
                        "Array.from(document.querySelectorAll('section.leaders li'))
                           .map(li => [li.textContent.split(':')[0], li.getBoundingClientRect().bottom + scrollY])",
                    )
                    .unwrap();
                let lines = lines.as_array().unwrap();
                assert!(!lines.is_empty(), "home at {width} px: no leader line");
                for line in lines {
                    assert!(line[1].as_f64().unwrap() <= 800.0, "home at {width} px: {line} ends below 800 px");
                }
            }
            // A phone's screen (390 × 844) holds any two stages' lines.
            if *name == "home" && width == 390 {
                let heights = browser
                    .eval("Array.from(document.querySelectorAll('section.leaders li')).map(li => li.getBoundingClientRect().height)")
                    .unwrap();
                let heights: Vec<f64> = heights.as_array().unwrap().iter().map(|h| h.as_f64().unwrap()).collect();
                assert!(heights.len() >= 2, "home at {width} px: {} leader lines", heights.len());
                for pair in heights.windows(2) {
                    assert!(pair[0] + pair[1] <= PHONE_HEIGHT_PX, "home at {width} px: two lines {pair:?} px high");
                }
            }
            no_hash_in_headings(browser, name);
            // Issue 49: a plot wider than a phone scrolls in its box, and
            // its caption says so (a plot cut at the edge looked cut off).
            if *name == "home" {
                let hint =
                    browser.eval("getComputedStyle(document.querySelector('figcaption'), '::before').content").unwrap();
                let expected = if width == 390 { json!("\"Scroll the plot sideways. \"") } else { json!("none") };
                assert_eq!(hint, expected, "home at {width} px: the plot caption's hint");
            }
            // Each plot as the page shows it: (src, width in CSS px).
            let plots = browser
                .eval(
                    "Array.from(document.querySelectorAll('figure img'))
                       .map(i => [new URL(i.src).pathname, i.getBoundingClientRect().width])",
                )
                .unwrap();
            for plot in plots.as_array().unwrap() {
                let (src, shown_px) = (plot[0].as_str().unwrap(), plot[1].as_f64().unwrap());
                let (svg_px, font_px) = *svgs.entry(src.to_string()).or_insert_with(|| svg_text_size(port, src));
                let drawn_px = font_px * shown_px / svg_px;
                assert!(
                    drawn_px >= MIN_PLOT_TEXT_PX,
                    "{name} ({path}) at {width} px: {src} is {svg_px} px wide, shown {shown_px} px wide: \
                     its {font_px}-px text is drawn at {drawn_px:.1} px"
                );
            }
            // A runner page's stage tables link each row's date to its
            // history row: the date never breaks at its hyphens.
            if *name == "runner" {
                let broken = browser
                    .eval(
                        "Array.from(document.querySelectorAll(':is(#t-history-cpu, #t-history-disk, #t-history-cache, \
                           #t-history-internet, #t-history-build-cache) td:first-child a'))
                           .filter(a => a.getClientRects().length !== 1).map(a => a.textContent)",
                    )
                    .unwrap();
                assert_eq!(broken, json!([]), "runner ({path}) at {width} px: dates broken over lines");
                let stages =
                    browser.eval("document.querySelectorAll('#t-history-cpu td:first-child a').length").unwrap();
                assert!(stages.as_u64().unwrap() > 0, "runner ({path}): no CoreMark table with dates");
            }
            if name.starts_with("overview") {
                overview_reads_by_group(browser, name, width);
                price_chart_reads(browser, port, name, width, &mut resolved);
            }
            if *name == "home" || *name == "runner" || *name == "overview" {
                let shot = shots.join(format!("{name}-{width}.png"));
                browser.screenshot(&shot);
                assert!(std::fs::read(&shot).unwrap().len() > 10_000, "{name} at {width} px: empty screenshot");
            }
        }
    }
    assert!(!svgs.is_empty(), "no page showed a plot");
    browser.resize(1280);
}

/// Issue 49: the overview, as the page at `width` shows it. Each table is
/// one comparison group (its own `<tbody>`), named in its heading without
/// a hash key, and orders and shares only its own rows: every CoreMark
/// share names the section's group, the figures run from the fastest down
/// (on the page by CoreMark), and each group's best is 100 % again. At 390
/// px the runner and its first figure, CoreMark, are on screen.
fn overview_reads_by_group(browser: &mut Browser, name: &str, width: u32) {
    let sections = browser
        .eval(
            "Array.from(document.querySelectorAll('section.group')).map(s => ({
               heading: s.querySelector('h2').textContent,
               tables: s.querySelectorAll('table.overview').length,
               bodies: s.querySelectorAll('table.overview > tbody').length,
               groups: Array.from(s.querySelectorAll('table.overview tbody tr')).map(r => r.cells[1].querySelector('.rel'))
                 .filter(Boolean).map(e => e.title.replace('Against the best of its comparison group: ', '')),
               shares: Array.from(s.querySelectorAll('table.overview tbody tr')).map(r => r.cells[1].querySelector('.rel'))
                 .filter(Boolean).map(e => e.textContent),
               coremark: Array.from(s.querySelectorAll('table.overview tbody tr')).map(r => r.cells[1])
                 .filter(c => c.querySelector('.rel')).map(c => parseFloat(c.textContent)),
               right: Math.max(...Array.from(s.querySelectorAll('table.overview tbody tr'))
                 .map(r => r.cells[1].getBoundingClientRect().right)),
               left: Math.min(...Array.from(s.querySelectorAll('table.overview tbody tr'))
                 .map(r => r.cells[0].getBoundingClientRect().left)),
             }))",
        )
        .unwrap();
    let sections = sections.as_array().unwrap();
    assert!(sections.len() > 1, "{name}: the fixture has two CoreMark groups and runners without one: {sections:?}");
    no_hash_in_headings(browser, name);
    for s in sections {
        let heading = s["heading"].as_str().unwrap();
        assert_eq!((s["tables"].as_u64(), s["bodies"].as_u64()), (Some(1), Some(1)), "{name}: {heading}: one table");
        assert!(
            s["groups"].as_array().unwrap().iter().all(|g| g == heading),
            "{name}: {heading}: a share against another group: {s}"
        );
        let shares = s["shares"].as_array().unwrap();
        if !shares.is_empty() {
            // One best, or several that cannot be told apart ("≈").
            let best = shares.iter().filter(|x| *x == "100 %").count();
            let tied = shares.iter().filter(|x| *x == "≈ 100 %").count();
            assert!((best, tied) == (1, 0) || (best == 0 && tied > 1), "{name}: {heading}: one best place: {s}");
        }
        if *name == *"overview" {
            let figures: Vec<f64> = s["coremark"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            assert!(figures.windows(2).all(|w| w[0] >= w[1]), "{name}: {heading}: not fastest first: {figures:?}");
            if !figures.is_empty() {
                assert!(
                    shares[0] == "100 %" || shares[0] == "≈ 100 %",
                    "{name}: {heading}: the group's order restarts at its best"
                );
            }
        }
        if width == 390 {
            let (left, right) = (s["left"].as_f64().unwrap(), s["right"].as_f64().unwrap());
            assert!(
                left >= 0.0 && right <= 390.0,
                "{name}: {heading}: CoreMark column at {left}–{right} px, off a 390-px screen"
            );
        }
    }
}

/// Issue 56: the overview's speed against price, as the page at `width`
/// shows it. The fixture prices both Ubicloud runners of the imported
/// group, whose reports publish no all-core figure: that group's chart has
/// a one-thread panel with a point per priced runner, each linking to a
/// runner page that is there (`resolved` holds those fetched), the same
/// runners as the table under it; the panel fits its box without
/// scrolling, and its text is drawn at `MIN_PLOT_TEXT_PX` or more (the
/// smallest `font-size` in it, scaled by the width it is shown at over
/// its own).
fn price_chart_reads(
    browser: &mut Browser,
    port: u16,
    name: &str,
    width: u32,
    resolved: &mut std::collections::HashSet<String>,
) {
    let charts = browser
        .eval(
            "Array.from(document.querySelectorAll('.price-chart')).map(f => ({
               box: [f.scrollWidth, f.clientWidth],
               table: Array.from(f.parentElement.querySelectorAll('table.price-figures tbody th a'))
                 .map(a => a.getAttribute('href')).sort(),
               panels: Array.from(f.querySelectorAll('svg')).map(s => ({
                 shown: s.getBoundingClientRect().width,
                 own: s.viewBox.baseVal.width,
                 font: Math.min(...Array.from(s.querySelectorAll('text')).map(t => parseFloat(t.getAttribute('font-size')))),
                 links: Array.from(s.querySelectorAll('a')).map(a => a.getAttribute('href')).sort(),
               })),
             }))",
        )
        .unwrap();
    let charts = charts.as_array().unwrap();
    assert_eq!(charts.len(), 1, "{name} at {width} px: one group with priced runners has a chart: {charts:?}");
    let chart = &charts[0];
    let (scroll_px, client_px) = (chart["box"][0].as_f64().unwrap(), chart["box"][1].as_f64().unwrap());
    assert!(scroll_px <= client_px, "{name} at {width} px: the chart scrolls ({scroll_px} px in {client_px})");
    let panels = chart["panels"].as_array().unwrap();
    assert_eq!(panels.len(), 1, "{name} at {width} px: the one-thread panel only (no all-core figures): {chart}");
    let p = &panels[0];
    assert_eq!(
        p["links"],
        json!(["/runners/ubicloud/ubicloud-linux-arm64/", "/runners/ubicloud/ubicloud-linux-x64/"]),
        "{name} at {width} px"
    );
    assert_eq!(p["links"], chart["table"], "{name} at {width} px: the table lists the plotted runners");
    let drawn_px = p["font"].as_f64().unwrap() * p["shown"].as_f64().unwrap() / p["own"].as_f64().unwrap();
    assert!(drawn_px >= MIN_PLOT_TEXT_PX, "{name} at {width} px: the chart's text is drawn at {drawn_px:.1} px: {p}");
    for link in p["links"].as_array().unwrap() {
        let link = link.as_str().unwrap();
        if resolved.insert(link.to_string()) {
            let (status, page) = get(port, link).unwrap_or_else(|| panic!("cannot get {link}"));
            assert_eq!(status, 200, "{name}: the chart links {link}, which is not there");
            assert!(page.contains("<h1>"), "{name}: {link} is no page");
        }
    }
}

/// Issue 49: no heading, caption or summary of the page names a hash key
/// (a fingerprint or comparability key); those sit behind a details element.
fn no_hash_in_headings(browser: &mut Browser, name: &str) {
    let headings = browser
        .eval("Array.from(document.querySelectorAll('h1, h2, h3, h4, caption, summary')).map(h => h.textContent)")
        .unwrap();
    for h in headings.as_array().unwrap() {
        let h = h.as_str().unwrap();
        let hash = h
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w.len() >= 12 && w.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(!hash, "{name}: a hash key in the heading {h:?}");
    }
}

/// A plot's own width and its smallest `font-size`, px, from its SVG.
fn svg_text_size(port: u16, src: &str) -> (f64, f64) {
    let (status, svg) = get(port, src).unwrap_or_else(|| panic!("cannot get {src}"));
    assert_eq!(status, 200, "{src}");
    let attr = |text: &str, name: &str| -> Vec<f64> {
        text.split(&format!(" {name}=\"")).skip(1).map(|v| v.split('"').next().unwrap().parse().unwrap()).collect()
    };
    let open = &svg[svg.find("<svg").unwrap()..];
    let open = &open[..open.find('>').unwrap()];
    let width = attr(open, "width")[0];
    let smallest = attr(&svg, "font-size").into_iter().fold(f64::INFINITY, f64::min);
    assert!(smallest.is_finite(), "{src}: no text");
    (width, smallest)
}

#[test]
fn pages_load_in_chromium_without_errors() {
    assert!(
        Path::new(CHROMIUM).is_file(),
        "{CHROMIUM} is missing: run scripts/test.sh, which installs Debian's chromium for this test"
    );
    let work = tempfile::tempdir().unwrap();
    let results = work.path().join("results");
    copy_dir(&Path::new(REPO).join("results"), &results);
    let mut v = golden();
    v["provider"]["name"] = json!("<script>alert(1)</script>");
    v["notices"] = json!([{"stage": "cpu", "message": "<img src=x onerror=alert(2)>"}]);
    put(&results, GOLDEN_PATH, &v);
    let content = work.path().join("content");
    copy_dir(&Path::new(REPO).join("content"), &content);
    // A provider file's text is shown too (the runner page, the overview).
    std::fs::write(
        content.join("providers/example.toml"),
        "name = \"<script>alert(3)</script>\"\n[runners.example-linux-x64]\narch = \"x64\"\nos = \"linux\"\nprice = \
         { usd_per_minute = 0.008, source = \"https://example.com/'><img/src=x/onerror=alert(4)>\", read_on = \
         \"2026-11-20\" }\n",
    )
    .unwrap();
    // Prices in one comparison group of the estimate page (below): it
    // ranks the costs of a job on both.
    std::fs::write(
        content.join("providers/ubicloud.toml"),
        "name = \"Ubicloud\"\n[runners.ubicloud-linux-x64]\narch = \"x64\"\nprice = { usd_per_minute = 0.0008, source = \
         \"https://example.com/\", read_on = \"2026-11-20\" }\n[runners.ubicloud-linux-arm64]\narch = \"arm64\"\nprice = { \
         usd_per_minute = 0.0005, source = \"https://example.com/\", read_on = \"2026-11-20\" }\n",
    )
    .unwrap();

    let port = free_port();
    let out = work.path().join("public");
    // Two rows a home table: the longer tables get pages of their own.
    let _server =
        serve(port, &results, &out, &["--content".as_ref(), content.as_os_str(), "--home-rows".as_ref(), "2".as_ref()]);
    // chromium starts while the first build runs.
    let mut browser = Browser::start(&work.path().join("chromium.log"));
    wait_until("the first build", || get(port, "/__reload").is_some_and(|(s, b)| s == 200 && b == "1"));

    let shots = PathBuf::from(REPO).join("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, path, expect) in [
        (
            "home",
            "/",
            vec![
                "<table class=\"sortable\" id=\"t-ff90bf001f08-cpu\">",
                "<img src=\"/plots/ff90bf001f08/coremark.svg\"",
            ],
        ),
        ("provider", "/providers/ubicloud/", vec!["<table>", "<img src=\"/plots/providers/ubicloud/"]),
        ("methodology", "/methodology/", vec!["<h1>Methodology</h1>", "<table>"]),
        (
            "build-cache",
            "/build-cache/",
            vec!["<h1>Build-cache servers</h1>", "<table id=\"t-build-cache-documents\">"],
        ),
        (
            "server",
            "/build-cache/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238/",
            vec!["<table id=\"t-table-3\">", "<img src=\"/build-cache/rbcs/celeron-j3455/"],
        ),
        (
            "overview",
            "/overview/",
            vec![
                "<table class=\"sortable overview\" id=\"t-o-ff90bf001f08-cpu\">",
                "<select id=\"filter-arch\">",
                "Cost of one-thread work",
            ],
        ),
        ("runner", "/runners/example/example-linux-x64/", vec!["<dl class=\"machine\">", "per ¢/min"]),
        ("estimate", "/estimate/", vec!["<form id=\"estimate-form\"", "<table class=\"estimate\">", "$0.0"]),
    ] {
        let url = format!("http://127.0.0.1:{port}{path}");
        let dom = browser.load(&url);
        assert!(dom.contains("<html lang=\"en\" data-js=\"ok\">"), "{name}: the page script did not finish:\n{dom}");
        assert!(!dom.contains("data-js-errors"), "{name}: script errors:\n{dom}");
        for e in expect {
            assert!(dom.contains(e), "{name}: no {e}");
        }
        assert!(!dom.contains("<script>alert") && !dom.contains("<img src=\"x\""), "{name}: injected markup is live");
        // No page scrolls sideways (wide tables scroll in their own box).
        let wide = browser.eval("document.documentElement.scrollWidth <= window.innerWidth");
        assert_eq!(wide, Ok(json!(true)), "{name}: the page is wider than the window");
        // No image (the plots) failed to load; those below the fold load
        // lazily, so not all have loaded yet.
        let broken =
            browser.eval("Array.from(document.images).filter(i => i.complete && i.naturalWidth === 0).map(i => i.src)");
        assert_eq!(broken, Ok(json!([])), "{name}: images that did not load");
        let shot = shots.join(format!("{name}.png"));
        browser.screenshot(&shot);
        let png = std::fs::read(&shot).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name}: the screenshot is no PNG");
        assert!(png.len() > 10_000, "{name}: empty screenshot");
        let problems = browser.problems();
        assert!(problems.is_empty(), "{name}: console messages, errors or dialogs:\n{}", problems.join("\n"));
    }
    fits_every_width(&mut browser, port, &shots);
    let (_, home) = get(port, "/").unwrap();
    assert!(home.contains("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;"));
    assert!(home.contains("<script src=\"/__reload.js\"></script></body>"));
    let dom = browser.load(&format!("http://127.0.0.1:{port}/?sort=t-ff90bf001f08-cpu:3:asc&q=latchkey"));
    assert!(dom.contains("aria-sort=\"ascending\""), "the sort in the URL was not applied:\n{dom}");
    assert!(dom.contains("id=\"filter\""), "no filter box");
    let problems = browser.problems();
    assert!(problems.is_empty(), "sorted home: console messages, errors or dialogs:\n{}", problems.join("\n"));
    // The overview's filters, from the address: only the arm64 runner.
    let dom = browser.load(&format!("http://127.0.0.1:{port}/overview/?arch=arm64"));
    let shown = browser.eval(
        "Array.from(document.querySelectorAll('table.overview tbody tr')).filter(r => !r.hidden).map(r => r.dataset.arch)",
    );
    assert_eq!(shown, Ok(json!(["arm64"])), "the architecture filter was not applied:\n{dom}");
    let problems = browser.problems();
    assert!(problems.is_empty(), "filtered overview: console messages, errors or dialogs:\n{}", problems.join("\n"));
    estimate_page(&mut browser, port);
    // chromium also logs console messages to its stderr.
    let log = std::fs::read_to_string(work.path().join("chromium.log")).unwrap();
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages:\n{}", console.join("\n"));

    // A broken page shows the error, also in the open tab; fixing it recovers.
    let about = content.join("about.md");
    let good = std::fs::read_to_string(&about).unwrap();
    std::fs::write(&about, "no front matter\n").unwrap();
    wait_until("the error page", || get(port, "/").is_some_and(|(s, _)| s == 500));
    let (_, page) = get(port, "/").unwrap();
    assert!(
        page.contains(&format!("{}: a page starts with TOML front matter between two `+++` lines", about.display())),
        "{page}"
    );
    browser.wait_for("the error page", "document.querySelector('pre.reload-error') !== null");
    std::fs::write(&about, good).unwrap();
    wait_until("the recovery", || get(port, "/").is_some_and(|(s, _)| s == 200));
    browser.wait_for(
        "the recovery",
        "document.documentElement.dataset.js === 'ok' && document.querySelector('pre.reload-error') === null",
    );
    browser.close();
}

/// The text of the estimate page's result: each caption, header and row
/// (cells joined by " | ") and each runner listed as not measured.
const ESTIMATE_TEXT: &str = "Array.from(document.querySelectorAll('#estimate-result :is(caption, tr, li, p)')).map(e => \
                             e.tagName === 'TR' ? Array.from(e.cells).map(c => c.textContent).join(' | ') : \
                             e.textContent)";

/// The estimate page's script gives what the model gave the page as built
/// for the same job, and a changed input changes the address and the table.
fn estimate_page(browser: &mut Browser, port: u16) {
    let built = browser.load(&format!("http://127.0.0.1:{port}/estimate/"));
    assert!(!built.contains("data-estimated"), "the script estimated a page that needs no estimate");
    let by_model = browser.eval(ESTIMATE_TEXT).unwrap();
    // The Ubicloud group's rows, as the model printed them: prices make costs.
    let rows = by_model.as_array().unwrap().iter().filter(|t| t.as_str().unwrap().contains("ubicloud")).count();
    assert_eq!(rows, 2, "{by_model}");
    let query =
        browser.eval("new URLSearchParams(new FormData(document.getElementById('estimate-form'))).toString()").unwrap();
    let query = query.as_str().unwrap().to_string();
    browser.load(&format!("http://127.0.0.1:{port}/estimate/?{query}"));
    browser.wait_for("the script's estimate", "document.getElementById('estimate-result').dataset.estimated === '1'");
    assert_eq!(browser.eval(ESTIMATE_TEXT).unwrap(), by_model, "the script and the model differ for ?{query}");
    // Twice the CPU seconds: the reference's CPU part doubles, to 960 s,
    // and the address says so.
    browser
        .eval("const i = document.getElementById('e-cpu'); i.value = '960'; i.dispatchEvent(new Event('input', {bubbles: true}))")
        .unwrap();
    browser.wait_for("the new estimate", "document.getElementById('estimate-result').dataset.estimated === '2'");
    let search = browser.eval("location.search").unwrap();
    assert!(search.as_str().unwrap().contains("cpu=960"), "{search}");
    let changed = browser.eval(ESTIMATE_TEXT).unwrap();
    assert_ne!(changed, by_model);
    assert!(
        changed
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_str().unwrap().contains("latchkey-linux-x64 | Latchkey | 960.0 |")),
        "{changed}"
    );
    let problems = browser.problems();
    assert!(problems.is_empty(), "estimate: console messages, errors or dialogs:\n{}", problems.join("\n"));
}
