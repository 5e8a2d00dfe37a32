//! `/sitemap.xml`: every HTML page of the build.

use super::plot::xml_escape;

/// The sitemap of `pages` (URL paths such as `/providers/x/`).
pub fn render(base_url: &str, pages: &[String]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for p in pages {
        out.push_str(&format!("<url><loc>{}</loc></url>\n", xml_escape(&format!("{base_url}{p}"))));
    }
    out.push_str("</urlset>\n");
    out
}
