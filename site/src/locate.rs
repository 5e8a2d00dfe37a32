//! The line of a JSON path in a result file, so that `site check --format
//! github` can annotate the line a reviewer must look at, not only the file.
//!
//! serde_json keeps no positions, so this is a small scanner over the file's
//! text that follows the same paths the checks print (`$.stages.cpu.samples[2]
//! .validation`). It only needs to handle files that parsed as JSON already;
//! on anything else it gives up and the annotation names the file alone.

/// One step of a path: an object member or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The 1-based line where `path` starts in `json`, or, when the path is not
/// in the file (a missing field), the line of its nearest enclosing value
/// that is. `None` where the path cannot be read or the text is not JSON.
pub fn line_of(json: &str, path: &str) -> Option<usize> {
    let target = parse_path(path)?;
    let mut s = Scanner { bytes: json.as_bytes(), pos: 0, line: 1, target: &target, best: None };
    s.ws();
    s.value(&mut Vec::new()).ok()?;
    s.best.map(|(_, line)| line)
}

/// `$.a.b[3].c` (the leading `$` optional) into steps.
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let rest = path.strip_prefix('$').unwrap_or(path);
    let mut steps = Vec::new();
    let mut chars = rest.chars().peekable();
    // A member name runs to the next `.` or `[`.
    let name = |first: String, chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        let mut key = first;
        while let Some(c) = chars.next_if(|&c| c != '.' && c != '[') {
            key.push(c);
        }
        Step::Key(key)
    };
    while let Some(c) = chars.next() {
        match c {
            '.' => steps.push(name(String::new(), &mut chars)),
            '[' => {
                let n: String = chars.by_ref().take_while(|&c| c != ']').collect();
                steps.push(Step::Index(n.parse().ok()?));
            }
            // A path written without `$.` (e.g. `parameters.cpu_samples`).
            _ if steps.is_empty() => steps.push(name(c.to_string(), &mut chars)),
            _ => return None,
        }
    }
    Some(steps)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    target: &'a [Step],
    /// The deepest prefix of the target seen so far: (its length, its line).
    best: Option<(usize, usize)>,
}

/// Not JSON: the caller gives up.
struct Invalid;

/// Deeper than any result file nests; bounds the recursion on hostile input.
const MAX_DEPTH: usize = 64;

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.bump();
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), Invalid> {
        if self.bump() == Some(b) { Ok(()) } else { Err(Invalid) }
    }

    /// Notes `at` (the path of the value about to start, on `line`) if it is
    /// a longer prefix of the target than any seen.
    fn note(&mut self, at: &[Step], line: usize) {
        let n = at.len();
        if n <= self.target.len() && self.target[..n] == *at && self.best.is_none_or(|(len, _)| n > len) {
            self.best = Some((n, line));
        }
    }

    fn value(&mut self, at: &mut Vec<Step>) -> Result<(), Invalid> {
        if at.len() > MAX_DEPTH {
            return Err(Invalid);
        }
        let line = self.line;
        self.note(at, line);
        match self.peek().ok_or(Invalid)? {
            b'{' => {
                self.bump();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.bump();
                    return Ok(());
                }
                loop {
                    self.ws();
                    let key_line = self.line;
                    let key = self.string()?;
                    at.push(Step::Key(key));
                    // A member is annotated on its key's line: noted first,
                    // and `note` keeps the first line of a given depth.
                    self.note(at, key_line);
                    self.ws();
                    self.expect(b':')?;
                    self.ws();
                    let result = self.value(at);
                    at.pop();
                    result?;
                    self.ws();
                    match self.bump() {
                        Some(b',') => continue,
                        Some(b'}') => return Ok(()),
                        _ => return Err(Invalid),
                    }
                }
            }
            b'[' => {
                self.bump();
                self.ws();
                if self.peek() == Some(b']') {
                    self.bump();
                    return Ok(());
                }
                let mut i = 0;
                loop {
                    self.ws();
                    at.push(Step::Index(i));
                    let result = self.value(at);
                    at.pop();
                    result?;
                    i += 1;
                    self.ws();
                    match self.bump() {
                        Some(b',') => continue,
                        Some(b']') => return Ok(()),
                        _ => return Err(Invalid),
                    }
                }
            }
            b'"' => self.string().map(drop),
            _ => {
                // A number, true, false or null: up to the next delimiter.
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    self.bump();
                }
                Ok(())
            }
        }
    }

    /// A string's content (escapes kept as written: keys in result files
    /// are plain ASCII names).
    fn string(&mut self) -> Result<String, Invalid> {
        self.expect(b'"')?;
        let start = self.pos;
        loop {
            match self.bump().ok_or(Invalid)? {
                b'\\' => {
                    self.bump().ok_or(Invalid)?;
                }
                b'"' => break,
                _ => {}
            }
        }
        Ok(String::from_utf8_lossy(&self.bytes[start..self.pos - 1]).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::line_of;

    const FILE: &str = r#"{
  "kind": "measured",
  "stages": {
    "cpu": {
      "samples": [
        { "status": "ok" },
        {
          "status": "error",
          "validation": "failed"
        }
      ]
    }
  },
  "parameters": { "cpu_samples": 5 }
}
"#;

    #[test]
    fn finds_members_and_array_elements() {
        assert_eq!(line_of(FILE, "$.kind"), Some(2));
        assert_eq!(line_of(FILE, "$.stages.cpu.samples"), Some(5));
        assert_eq!(line_of(FILE, "$.stages.cpu.samples[0]"), Some(6));
        assert_eq!(line_of(FILE, "$.stages.cpu.samples[1].validation"), Some(9));
        assert_eq!(line_of(FILE, "parameters.cpu_samples"), Some(14));
        assert_eq!(line_of(FILE, "$"), Some(1));
    }

    #[test]
    fn a_missing_field_points_at_its_nearest_enclosing_value() {
        assert_eq!(line_of(FILE, "$.stages.cpu.samples[1].message"), Some(7));
        assert_eq!(line_of(FILE, "$.stages.disk"), Some(3));
    }

    #[test]
    fn gives_up_on_what_is_not_json_or_not_a_path() {
        assert_eq!(line_of("{\"a\": [1, 2", "$.a[1]"), None);
        assert_eq!(line_of(FILE, "$.stages[x]"), None);
        let deep = "[".repeat(100);
        assert_eq!(line_of(&deep, "$[0]"), None);
    }
}
