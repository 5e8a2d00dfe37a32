//! The page `site serve` shows while the last build failed.

use super::plot::xml_escape;

/// A page that shows a failed build's error, for `site serve`. Built by
/// hand, not with tera, because the templates may be what failed.
pub fn error_page(error: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Build failed · runner-bench</title>\
         <link rel=\"icon\" href=\"data:,\"><link rel=\"stylesheet\" href=\"/static/site.css\"></head><body><main id=\"main\"><h1>The build failed</h1>\
         <p>Fix the problem below; this page reloads when the next build succeeds.</p><pre class=\"reload-error\">{}</pre>\
         </main></body></html>\n",
        xml_escape(error)
    )
}
