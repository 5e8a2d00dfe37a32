//! The Hugo side of `scripts/bench-hugo.sh`: a plain Hugo site of one
//! markdown page per result (10,000 pages), each holding a 12-row table of
//! figures, with minimal single and list layouts and Hugo's default
//! configuration apart from the base URL and title it requires. The figures
//! are made up but vary per page, so that no two pages are the same text.

use std::fmt::Write as _;
use std::path::Path;

/// What each page's table lists: (figure, unit).
const FIGURES: [(&str, &str); 12] = [
    ("CoreMark, one core", "iterations/s"),
    ("CoreMark, all cores", "iterations/s"),
    ("Sequential read", "MB/s"),
    ("Sequential write", "MB/s"),
    ("Random read 4 KiB", "IOPS"),
    ("Random write 4 KiB", "IOPS"),
    ("Download", "Mbit/s"),
    ("Upload", "Mbit/s"),
    ("Latency", "ms"),
    ("Cache save", "s"),
    ("Cache restore", "s"),
    ("Job duration", "s"),
];

const CONFIG: &str = "baseURL = 'http://localhost/'\ntitle = 'runner-bench (Hugo comparison)'\n";

const BASEOF: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>{{ .Title }}</title></head>\n<body>\n{{ block \"main\" . }}{{ end }}\n</body>\n</html>\n";

const SINGLE: &str = "{{ define \"main\" }}\n<h1>{{ .Title }}</h1>\n<p>{{ .Date.Format \"2006-01-02\" }}</p>\n{{ .Content }}\n{{ end }}\n";

const LIST: &str = "{{ define \"main\" }}\n<h1>{{ .Title }}</h1>\n<ul>\n{{ range .Pages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>\n{{ end }}</ul>\n{{ end }}\n";

/// Writes the site into `dir` (config, layouts, and `pages` pages under
/// content/results/, 100 to a folder as the results are 10 to a runner).
pub(crate) fn write(dir: &Path, pages: usize) {
    write_file(&dir.join("hugo.toml"), CONFIG);
    write_file(&dir.join("layouts/_default/baseof.html"), BASEOF);
    write_file(&dir.join("layouts/_default/single.html"), SINGLE);
    write_file(&dir.join("layouts/_default/list.html"), LIST);
    for page in 0..pages {
        let path = dir.join(format!("content/results/group-{:03}/result-{page:05}.md", page / 100));
        write_file(&path, &page_text(page));
    }
}

fn page_text(page: usize) -> String {
    let mut text = format!(
        "---\ntitle: \"Result {page:05}\"\ndate: 2026-{:02}-10\n---\n\nFigures of runner {} run {}.\n\n| Figure | Value | Unit |\n| --- | ---: | --- |\n",
        1 + page % 10,
        page / 10,
        page % 10
    );
    for (i, (figure, unit)) in FIGURES.iter().enumerate() {
        // Deterministic values that differ from page to page and row to row.
        let value = ((page * 7_919 + i * 104_729) % 100_000) as f64 / 10.0;
        writeln!(text, "| {figure} | {value:.1} | {unit} |").unwrap();
    }
    text
}

fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
