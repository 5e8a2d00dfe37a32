//! GitHub Actions expressions, `${{ … }}`: text → tokens → `Expr` →
//! `Value`, with the semantics of GitHub's evaluator as documented in
//! "Evaluate expressions in workflows and actions"
//! (docs.github.com/en/actions/reference/workflows-and-actions/expressions).
//!
//! Values are JSON values (`serde_json::Value`), as GitHub's are: contexts
//! are objects, `toJSON`/`fromJSON` convert without loss. Where GitHub's
//! rules differ from Rust's they are spelled out: `&&` and `||` return an
//! operand, not a boolean (as in JavaScript); `==` compares strings without
//! regard to case and coerces differing types to numbers; a missing
//! property is `null`.
//!
//! Anything this evaluator does not implement (an operator, a function, a
//! context) is an error, never an empty string, so a workflow that uses it
//! fails the rehearsal instead of passing it unnoticed. A property missing
//! from a context whose properties are all known (`github.*`, `inputs.*`,
//! `needs.<job>.*`, `steps.<id>.*`, ...) is also an error: on GitHub it
//! would be an empty string, and almost always a typo.

use std::fmt::Write as _;

use anyhow::{Context as _, anyhow, bail};
use serde_json::{Map, Value};

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Literal(Value),
    /// A context by name (`github`, `needs`, ...), lowercased.
    Context(String),
    /// `base.name`
    Property(Box<Expr>, String),
    /// `base[index]`
    Index(Box<Expr>, Box<Expr>),
    /// A function call; the name lowercased.
    Call(String, Vec<Expr>),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Compare(Cmp, Box<Expr>, Box<Expr>),
}

/// The comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The status check functions, which only `if:` may call.
const STATUS_FUNCTIONS: [&str; 4] = ["success", "failure", "cancelled", "always"];

/// What the status check functions answer where they are allowed (`if:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Status {
    /// `success()`: no earlier step failed (a step's `if:`), or every
    /// ancestor job succeeded (a job's `if:`).
    pub(crate) success: bool,
    /// `failure()`: an earlier step failed, or an ancestor job failed.
    pub(crate) failure: bool,
    /// `cancelled()`: the run was cancelled.
    pub(crate) cancelled: bool,
}

/// The contexts an expression may read, and the status functions where
/// they may be called.
pub(crate) struct Scope<'a> {
    /// Context name (lowercase) → value; a context missing here is not
    /// available where the expression stands ("Unrecognized named-value"
    /// on GitHub).
    pub(crate) contexts: &'a Map<String, Value>,
    /// `Some` in `if:` fields only.
    pub(crate) status: Option<Status>,
}

// ---------------------------------------------------------------- tokens

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Value(Value),
    Ident(String),
    Dot,
    Star,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    Not,
    And,
    Or,
    Cmp(Cmp),
}

/// Splits expression text into tokens. Returns the tokens and the length of
/// text consumed: with `until_close`, lexing stops before a `}}` that is
/// not inside a string literal (the end of `${{ … }}`).
fn lex(text: &str, until_close: bool) -> anyhow::Result<(Vec<Token>, usize)> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let rest = &text[i..];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if until_close && rest.starts_with("}}") {
            return Ok((tokens, i));
        }
        let two = |s: &str| rest.starts_with(s);
        let (token, len) = match c {
            '.' if !rest[1..].starts_with(|d: char| d.is_ascii_digit()) => (Token::Dot, 1),
            '*' => (Token::Star, 1),
            '[' => (Token::LBracket, 1),
            ']' => (Token::RBracket, 1),
            '(' => (Token::LParen, 1),
            ')' => (Token::RParen, 1),
            ',' => (Token::Comma, 1),
            '!' if two("!=") => (Token::Cmp(Cmp::Ne), 2),
            '!' => (Token::Not, 1),
            '=' if two("==") => (Token::Cmp(Cmp::Eq), 2),
            '<' if two("<=") => (Token::Cmp(Cmp::Le), 2),
            '<' => (Token::Cmp(Cmp::Lt), 1),
            '>' if two(">=") => (Token::Cmp(Cmp::Ge), 2),
            '>' => (Token::Cmp(Cmp::Gt), 1),
            '&' if two("&&") => (Token::And, 2),
            '|' if two("||") => (Token::Or, 2),
            '\'' => {
                // 'it''s': a quote inside a string is doubled.
                let mut s = String::new();
                let mut j = i + 1;
                loop {
                    match text[j..].find('\'') {
                        None => bail!("unterminated string literal starting at {rest:?}"),
                        Some(k) => {
                            s.push_str(&text[j..j + k]);
                            j += k + 1;
                            if text[j..].starts_with('\'') {
                                s.push('\'');
                                j += 1;
                            } else {
                                break;
                            }
                        }
                    }
                }
                (Token::Value(Value::String(s)), j - i)
            }
            '"' => bail!("string literals take single quotes in expressions, not double: {rest:?}"),
            c if c.is_ascii_digit() || c == '-' || c == '.' => {
                let len = rest
                    .find(|d: char| !(d.is_ascii_alphanumeric() || matches!(d, '.' | '-' | '+')))
                    .unwrap_or(rest.len());
                (Token::Value(number(&rest[..len])?), len)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let len =
                    rest.find(|d: char| !(d.is_ascii_alphanumeric() || d == '_' || d == '-')).unwrap_or(rest.len());
                let word = &rest[..len];
                let token = match word {
                    "true" => Token::Value(Value::Bool(true)),
                    "false" => Token::Value(Value::Bool(false)),
                    "null" => Token::Value(Value::Null),
                    _ => Token::Ident(word.to_string()),
                };
                (token, len)
            }
            other => bail!("unexpected character {other:?} at {rest:?}"),
        };
        tokens.push(token);
        i += len;
    }
    if until_close {
        bail!("`${{{{` without its closing `}}}}`");
    }
    Ok((tokens, i))
}

/// A number literal: decimal with optional exponent, or `0x` hexadecimal.
fn number(text: &str) -> anyhow::Result<Value> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let n = if let Some(hex) = digits.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).map(|n| n as f64).ok()
    } else if digits.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.') {
        digits.parse::<f64>().ok()
    } else {
        None
    };
    let n = n.ok_or_else(|| anyhow!("not a number literal: {text:?}"))?;
    Ok(number_value(if negative { -n } else { n }))
}

/// A number as a JSON value: integral numbers as integers, so that
/// `toJSON(1)` prints `1` as GitHub does, not `1.0`.
fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null)
    }
}

// ---------------------------------------------------------------- parser

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expect(&mut self, want: &Token, what: &str) -> anyhow::Result<()> {
        match self.next() {
            Some(t) if &t == want => Ok(()),
            Some(t) => bail!("expected {what}, found {t:?}"),
            None => bail!("expected {what}, found the end of the expression"),
        }
    }

    // Precedence, lowest first (GitHub's table): || && (== !=) (< <= > >=) ! postfix.
    fn or(&mut self) -> anyhow::Result<Expr> {
        let mut left = self.and()?;
        while self.peek() == Some(&Token::Or) {
            self.pos += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> anyhow::Result<Expr> {
        let mut left = self.equality()?;
        while self.peek() == Some(&Token::And) {
            self.pos += 1;
            left = Expr::And(Box::new(left), Box::new(self.equality()?));
        }
        Ok(left)
    }

    fn equality(&mut self) -> anyhow::Result<Expr> {
        let mut left = self.relation()?;
        while let Some(Token::Cmp(op @ (Cmp::Eq | Cmp::Ne))) = self.peek().cloned() {
            self.pos += 1;
            left = Expr::Compare(op, Box::new(left), Box::new(self.relation()?));
        }
        Ok(left)
    }

    fn relation(&mut self) -> anyhow::Result<Expr> {
        let mut left = self.unary()?;
        while let Some(Token::Cmp(op @ (Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge))) = self.peek().cloned() {
            self.pos += 1;
            left = Expr::Compare(op, Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> anyhow::Result<Expr> {
        if self.peek() == Some(&Token::Not) {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> anyhow::Result<Expr> {
        let mut e = self.primary()?;
        loop {
            match self.peek() {
                Some(Token::Dot) => {
                    self.pos += 1;
                    match self.next() {
                        Some(Token::Ident(name)) => e = Expr::Property(Box::new(e), name),
                        // `true`, `null` ... are property names after a dot.
                        Some(Token::Value(v @ (Value::Bool(_) | Value::Null))) => {
                            e = Expr::Property(Box::new(e), v.to_string())
                        }
                        Some(Token::Star) => bail!("object filters (`.*`) are not supported by the rehearsal"),
                        other => bail!("expected a property name after `.`, found {other:?}"),
                    }
                }
                Some(Token::LBracket) => {
                    self.pos += 1;
                    if self.peek() == Some(&Token::Star) {
                        bail!("object filters (`[*]`) are not supported by the rehearsal");
                    }
                    let index = self.or()?;
                    self.expect(&Token::RBracket, "`]`")?;
                    e = Expr::Index(Box::new(e), Box::new(index));
                }
                _ => return Ok(e),
            }
        }
    }

    fn primary(&mut self) -> anyhow::Result<Expr> {
        match self.next() {
            Some(Token::Value(v)) => Ok(Expr::Literal(v)),
            Some(Token::LParen) => {
                let e = self.or()?;
                self.expect(&Token::RParen, "`)`")?;
                Ok(e)
            }
            Some(Token::Ident(name)) if self.peek() == Some(&Token::LParen) => {
                self.pos += 1;
                let mut args = Vec::new();
                if self.peek() == Some(&Token::RParen) {
                    self.pos += 1;
                } else {
                    loop {
                        args.push(self.or()?);
                        match self.next() {
                            Some(Token::Comma) => {}
                            Some(Token::RParen) => break,
                            other => bail!("expected `,` or `)` in the arguments of {name}(), found {other:?}"),
                        }
                    }
                }
                Ok(Expr::Call(name.to_ascii_lowercase(), args))
            }
            Some(Token::Ident(name)) => Ok(Expr::Context(name.to_ascii_lowercase())),
            Some(t) => bail!("unexpected {t:?}"),
            None => bail!("the expression is empty or ends too early"),
        }
    }
}

/// Parses one expression (the text between `${{` and `}}`).
pub(crate) fn parse(text: &str) -> anyhow::Result<Expr> {
    let (tokens, _) = lex(text, false)?;
    let mut p = Parser { tokens, pos: 0 };
    let e = p.or()?;
    if let Some(t) = p.peek() {
        bail!("unexpected {t:?} after a complete expression");
    }
    Ok(e)
}

impl Expr {
    /// Whether the expression calls a status check function anywhere.
    fn calls_status(&self) -> bool {
        match self {
            Expr::Literal(_) | Expr::Context(_) => false,
            Expr::Call(name, args) => STATUS_FUNCTIONS.contains(&name.as_str()) || args.iter().any(Expr::calls_status),
            Expr::Property(e, _) | Expr::Not(e) => e.calls_status(),
            Expr::Index(a, b) | Expr::And(a, b) | Expr::Or(a, b) | Expr::Compare(_, a, b) => {
                a.calls_status() || b.calls_status()
            }
        }
    }
}

// ---------------------------------------------------------------- templates

/// A field's text split into literal text and `${{ … }}` expressions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    Text(String),
    Expr(Expr),
}

/// Splits a field into text and expressions.
pub(crate) fn template(text: &str) -> anyhow::Result<Vec<Part>> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        if start > 0 {
            parts.push(Part::Text(rest[..start].to_string()));
        }
        let inner = &rest[start + 3..];
        let (_, len) = lex(inner, true)?;
        parts.push(Part::Expr(parse(&inner[..len]).with_context(|| format!("in `${{{{{}}}}}`", &inner[..len]))?));
        rest = &inner[len + 2..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest.to_string()));
    }
    Ok(parts)
}

/// Evaluates a string field: each `${{ … }}` replaced by its value as text.
pub(crate) fn interpolate(text: &str, scope: &Scope<'_>) -> anyhow::Result<String> {
    let mut out = String::new();
    for part in template(text)? {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Expr(e) => out.push_str(&to_text(&eval(&e, scope)?)),
        }
    }
    Ok(out)
}

/// Evaluates a field that may hold a non-string value (`timeout-minutes`,
/// `continue-on-error`): a field that is one `${{ … }}` and nothing else
/// has that expression's value; any other text is a string.
pub(crate) fn field_value(text: &str, scope: &Scope<'_>) -> anyhow::Result<Value> {
    let parts = template(text.trim())?;
    match parts.as_slice() {
        [Part::Expr(e)] => eval(e, scope),
        _ => Ok(Value::String(interpolate(text, scope)?)),
    }
}

/// Parses an `if:` field. The `${{ }}` around it is optional; an
/// expression that calls no status check function is implicitly
/// `success() && (…)`, as on GitHub. Text mixed with `${{ … }}` is refused:
/// GitHub evaluates it as a non-empty string, which is always true.
pub(crate) fn condition(text: &str) -> anyhow::Result<Expr> {
    let trimmed = text.trim();
    let e = match template(trimmed)?.as_slice() {
        [Part::Expr(e)] if trimmed.starts_with("${{") => e.clone(),
        parts if parts.iter().all(|p| matches!(p, Part::Text(_))) => parse(trimmed)?,
        _ => bail!("`if:` mixes text with `${{{{ }}}}`; GitHub reads that as a non-empty string, always true"),
    };
    Ok(if e.calls_status() { e } else { Expr::And(Box::new(Expr::Call("success".into(), vec![])), Box::new(e)) })
}

// ---------------------------------------------------------------- values

/// JavaScript-like truthiness: false, 0, NaN, '' and null are false.
pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// A value as a number, GitHub's coercion: null 0, booleans 1 and 0,
/// strings parsed ('' is 0, unparsable NaN), arrays and objects NaN.
fn to_number(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => {
            let s = s.trim();
            if s.is_empty() { 0.0 } else { number(s).ok().and_then(|v| v.as_f64()).unwrap_or(f64::NAN) }
        }
        Value::Array(_) | Value::Object(_) => f64::NAN,
    }
}

/// A value as text, as interpolation and the string functions see it.
pub(crate) fn to_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            Some(f) => f.to_string(),
            None => n.to_string(),
        },
        Value::String(s) => s.clone(),
        Value::Array(_) => "Array".to_string(),
        Value::Object(_) => "Object".to_string(),
    }
}

/// `==`: strings without regard to case; differing types as numbers;
/// arrays and objects equal only to themselves, which two separately
/// evaluated operands never are.
fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x.to_lowercase() == y.to_lowercase(),
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        _ => to_number(a) == to_number(b),
    }
}

fn compare(op: Cmp, a: &Value, b: &Value) -> bool {
    if matches!(op, Cmp::Eq | Cmp::Ne) {
        return (op == Cmp::Eq) == loose_eq(a, b);
    }
    let ordering = match (a, b) {
        (Value::String(x), Value::String(y)) => Some(x.to_lowercase().cmp(&y.to_lowercase())),
        _ => to_number(a).partial_cmp(&to_number(b)),
    };
    let Some(o) = ordering else { return false };
    match op {
        Cmp::Lt => o.is_lt(),
        Cmp::Le => o.is_le(),
        Cmp::Gt => o.is_gt(),
        Cmp::Ge => o.is_ge(),
        Cmp::Eq | Cmp::Ne => unreachable!("handled above"),
    }
}

/// A property of an object, looked up as GitHub does: without regard to case.
fn property<'v>(object: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    object.get(name).or_else(|| object.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v))
}

/// Paths below which every property is known, so a missing one is an
/// error rather than null. `*` matches any one name. `env` and
/// `steps.<id>.outputs` are open: their names are set at run time.
const CLOSED: &[&[&str]] = &[
    &["github"],
    &["runner"],
    &["inputs"],
    &["secrets"],
    &["job"],
    &["needs"],
    &["needs", "*"],
    &["needs", "*", "outputs"],
    &["steps"],
    &["steps", "*"],
];

fn closed(path: &[String]) -> bool {
    CLOSED.iter().any(|c| c.len() == path.len() && c.iter().zip(path).all(|(p, n)| *p == "*" || p == n))
}

/// Evaluates an expression.
pub(crate) fn eval(e: &Expr, scope: &Scope<'_>) -> anyhow::Result<Value> {
    Ok(eval_at(e, scope)?.0)
}

/// The value, and its path from a context when it is reached through
/// properties only (`needs.save-1.outputs`), for the closed-context rule.
fn eval_at(e: &Expr, scope: &Scope<'_>) -> anyhow::Result<(Value, Option<Vec<String>>)> {
    Ok(match e {
        Expr::Literal(v) => (v.clone(), None),
        Expr::Context(name) => match scope.contexts.get(name) {
            Some(v) => (v.clone(), Some(vec![name.clone()])),
            None => {
                let mut known: Vec<&str> = scope.contexts.keys().map(String::as_str).collect();
                known.sort_unstable();
                bail!("unrecognized named-value `{name}` here; available: {}", known.join(", "))
            }
        },
        Expr::Property(base, name) => member(eval_at(base, scope)?, name)?,
        Expr::Index(base, index) => {
            let base = eval_at(base, scope)?;
            match eval(index, scope)? {
                Value::String(name) => member(base, &name)?,
                i @ Value::Number(_) => {
                    let n = to_number(&i);
                    let v = match &base.0 {
                        Value::Array(a) if n >= 0.0 && n.fract() == 0.0 => a.get(n as usize).cloned(),
                        _ => None,
                    };
                    (v.unwrap_or(Value::Null), None)
                }
                other => bail!("cannot index with {other}"),
            }
        }
        Expr::Not(e) => (Value::Bool(!truthy(&eval(e, scope)?)), None),
        Expr::And(a, b) => {
            let a = eval(a, scope)?;
            (if truthy(&a) { eval(b, scope)? } else { a }, None)
        }
        Expr::Or(a, b) => {
            let a = eval(a, scope)?;
            (if truthy(&a) { a } else { eval(b, scope)? }, None)
        }
        Expr::Compare(op, a, b) => (Value::Bool(compare(*op, &eval(a, scope)?, &eval(b, scope)?)), None),
        Expr::Call(name, args) => (call(name, args, scope)?, None),
    })
}

/// `base.name`: null on anything but an object; on a closed context's
/// object, a missing name is an error.
fn member(base: (Value, Option<Vec<String>>), name: &str) -> anyhow::Result<(Value, Option<Vec<String>>)> {
    let (value, path) = base;
    let found = match &value {
        Value::Object(o) => property(o, name).cloned(),
        _ => None,
    };
    if found.is_none()
        && let Some(p) = &path
        && closed(p)
        && value.is_object()
    {
        bail!("{}.{name} does not exist", p.join("."));
    }
    let path = path.map(|mut p| {
        p.push(name.to_string());
        p
    });
    Ok((found.unwrap_or(Value::Null), path))
}

fn call(name: &str, args: &[Expr], scope: &Scope<'_>) -> anyhow::Result<Value> {
    let arity = |min: usize, max: usize| -> anyhow::Result<()> {
        if args.len() < min || args.len() > max {
            bail!("{name}() takes {min} to {max} arguments, not {}", args.len());
        }
        Ok(())
    };
    if STATUS_FUNCTIONS.contains(&name) {
        arity(0, 0)?;
        let Some(s) = scope.status else {
            bail!("{name}() is a status check function and may only be used in `if:`");
        };
        return Ok(Value::Bool(match name {
            "success" => s.success,
            "failure" => s.failure,
            "cancelled" => s.cancelled,
            _ => true,
        }));
    }
    let values = args.iter().map(|a| eval(a, scope)).collect::<anyhow::Result<Vec<_>>>()?;
    Ok(match name {
        "contains" => {
            arity(2, 2)?;
            Value::Bool(match &values[0] {
                Value::Array(items) => items.iter().any(|i| loose_eq(i, &values[1])),
                v => to_text(v).to_lowercase().contains(&to_text(&values[1]).to_lowercase()),
            })
        }
        "startswith" => {
            arity(2, 2)?;
            Value::Bool(to_text(&values[0]).to_lowercase().starts_with(&to_text(&values[1]).to_lowercase()))
        }
        "endswith" => {
            arity(2, 2)?;
            Value::Bool(to_text(&values[0]).to_lowercase().ends_with(&to_text(&values[1]).to_lowercase()))
        }
        "format" => {
            arity(1, usize::MAX)?;
            Value::String(format_string(&to_text(&values[0]), &values[1..])?)
        }
        "join" => {
            arity(1, 2)?;
            let sep = values.get(1).map(to_text).unwrap_or_else(|| ",".to_string());
            match &values[0] {
                Value::Array(items) => Value::String(items.iter().map(to_text).collect::<Vec<_>>().join(&sep)),
                v => Value::String(to_text(v)),
            }
        }
        "tojson" => {
            arity(1, 1)?;
            Value::String(serde_json::to_string_pretty(&values[0])?)
        }
        "fromjson" => {
            arity(1, 1)?;
            let text = to_text(&values[0]);
            serde_json::from_str(&text).with_context(|| format!("fromJSON: not JSON: {text:?}"))?
        }
        other => bail!("function {other}() is not supported by the rehearsal"),
    })
}

/// `format('{0} and {1}', a, b)`; `{{` and `}}` are literal braces.
fn format_string(fmt: &str, args: &[Value]) -> anyhow::Result<String> {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut digits = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(d) if d.is_ascii_digit() => digits.push(d),
                        _ => bail!("format: invalid placeholder in {fmt:?}"),
                    }
                }
                let i: usize = digits.parse().with_context(|| format!("format: empty placeholder in {fmt:?}"))?;
                let arg = args.get(i).with_context(|| format!("format: {fmt:?} has no argument {{{i}}}"))?;
                let _ = write!(out, "{}", to_text(arg));
            }
            '}' => bail!("format: a lone `}}` in {fmt:?}; write `}}}}`"),
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn contexts() -> Map<String, Value> {
        let v = json!({
            "inputs": {"profile": "quick", "collector-version": "0.2.0", "collector-ref": "", "flag": true},
            "env": {"TRIAL": "2"},
            "needs": {"save-1": {"result": "success", "outputs": {"saved-at": "12:00"}}},
            "steps": {"runtime": {"outputs": {"token": "t0k"}, "outcome": "success", "conclusion": "success"}},
            "github": {"sha": "abc"},
        });
        v.as_object().unwrap().clone()
    }

    fn run(text: &str) -> anyhow::Result<Value> {
        let c = contexts();
        eval(&parse(text)?, &Scope { contexts: &c, status: None })
    }

    fn err(text: &str) -> String {
        format!("{:#}", run(text).unwrap_err())
    }

    fn status_if(text: &str, success: bool, failure: bool) -> bool {
        let c = contexts();
        let scope = Scope { contexts: &c, status: Some(Status { success, failure, cancelled: false }) };
        truthy(&eval(&condition(text).unwrap(), &scope).unwrap())
    }

    #[test]
    fn literals() {
        assert_eq!(run("'it''s'").unwrap(), json!("it's"));
        assert_eq!(run("42").unwrap(), json!(42));
        assert_eq!(run("-9.5").unwrap(), json!(-9.5));
        assert_eq!(run("0xff").unwrap(), json!(255));
        assert_eq!(run("2e3").unwrap(), json!(2000));
        assert_eq!(run("true").unwrap(), json!(true));
        assert_eq!(run("null").unwrap(), Value::Null);
    }

    #[test]
    fn properties_with_dashes_and_any_case() {
        assert_eq!(run("needs.save-1.outputs.saved-at").unwrap(), json!("12:00"));
        assert_eq!(run("needs['save-1'].outputs['saved-at']").unwrap(), json!("12:00"));
        assert_eq!(run("inputs.collector-version").unwrap(), json!("0.2.0"));
        assert_eq!(run("GitHub.SHA").unwrap(), json!("abc"));
        assert_eq!(run("steps.runtime.outputs.token").unwrap(), json!("t0k"));
    }

    #[test]
    fn open_contexts_give_null_and_closed_ones_refuse() {
        assert_eq!(run("env.NOPE").unwrap(), Value::Null);
        assert_eq!(run("steps.runtime.outputs.nope").unwrap(), Value::Null);
        assert_eq!(err("steps.colector.outputs.path"), "steps.colector does not exist");
        assert_eq!(err("needs.save-1.outputs.saved_at"), "needs.save-1.outputs.saved_at does not exist");
        assert_eq!(err("inputs.profiles"), "inputs.profiles does not exist");
        assert_eq!(err("vars.x"), "unrecognized named-value `vars` here; available: env, github, inputs, needs, steps");
    }

    #[test]
    fn logic_returns_operands_like_javascript() {
        assert_eq!(run("inputs.collector-ref || format('v{0}', inputs.collector-version)").unwrap(), json!("v0.2.0"));
        assert_eq!(run("inputs.profile || 'x'").unwrap(), json!("quick"));
        assert_eq!(run("inputs.profile && 'x'").unwrap(), json!("x"));
        assert_eq!(run("'' && 'x'").unwrap(), json!(""));
        assert_eq!(run("!inputs.collector-ref").unwrap(), json!(true));
        assert_eq!(run("!(1 == 1) || 0").unwrap(), json!(0));
    }

    #[test]
    fn comparisons_coerce_as_github_does() {
        assert_eq!(run("'QUICK' == inputs.profile").unwrap(), json!(true));
        assert_eq!(run("env.TRIAL == 2").unwrap(), json!(true));
        assert_eq!(run("env.TRIAL != '2'").unwrap(), json!(false));
        assert_eq!(run("null == 0").unwrap(), json!(true));
        assert_eq!(run("true == 1").unwrap(), json!(true));
        assert_eq!(run("'' == 0").unwrap(), json!(true));
        assert_eq!(run("'abc' == 0").unwrap(), json!(false));
        assert_eq!(run("needs == needs").unwrap(), json!(false));
        assert_eq!(run("1 < 2 && 'b' > 'A'").unwrap(), json!(true));
        assert_eq!(run("1 == 1 && 2 == 3 || 4 == 4").unwrap(), json!(true));
    }

    #[test]
    fn functions() {
        assert_eq!(run("format('{0}-{1}-{0} {{x}}', 'a', 2)").unwrap(), json!("a-2-a {x}"));
        assert_eq!(run("contains('Hello', 'ELL')").unwrap(), json!(true));
        assert_eq!(run("contains(fromJSON('[\"a\", 1]'), 1)").unwrap(), json!(true));
        assert_eq!(run("startsWith(github.sha, 'AB')").unwrap(), json!(true));
        assert_eq!(run("endsWith('part-save-1.json', '.json')").unwrap(), json!(true));
        assert_eq!(run("join(fromJSON('[1, \"b\"]'), '+')").unwrap(), json!("1+b"));
        assert_eq!(run("fromJSON('{\"a\": [1]}').a[0]").unwrap(), json!(1));
        assert_eq!(
            run("toJSON(needs)").unwrap(),
            json!(
                "{\n  \"save-1\": {\n    \"outputs\": {\n      \"saved-at\": \"12:00\"\n    },\n    \"result\": \"success\"\n  }\n}"
            )
        );
        assert_eq!(err("hashFiles('x')"), "function hashfiles() is not supported by the rehearsal");
        assert_eq!(err("format('{1}', 'a')"), "format: \"{1}\" has no argument {1}");
        assert_eq!(err("always()"), "always() is a status check function and may only be used in `if:`");
    }

    #[test]
    fn syntax_errors_are_named() {
        assert_eq!(err("\"x\""), "string literals take single quotes in expressions, not double: \"\\\"x\\\"\"");
        assert_eq!(err("a ="), "unexpected character '=' at \"=\"");
        assert_eq!(err("(1"), "expected `)`, found the end of the expression");
        assert_eq!(err("1 2"), "unexpected Value(Number(2)) after a complete expression");
        assert_eq!(err("github.*"), "object filters (`.*`) are not supported by the rehearsal");
    }

    #[test]
    fn interpolation() {
        let c = contexts();
        let scope = Scope { contexts: &c, status: None };
        assert_eq!(interpolate("part-save-${{ env.TRIAL }}.json", &scope).unwrap(), "part-save-2.json");
        assert_eq!(interpolate("${{ '}}' }}|${{ inputs.flag }}|${{ needs }}", &scope).unwrap(), "}}|true|Object");
        assert_eq!(interpolate("no expression", &scope).unwrap(), "no expression");
        assert_eq!(field_value("${{ 1 == 1 }}", &scope).unwrap(), json!(true));
        assert_eq!(field_value(" ${{ 30 }} ", &scope).unwrap(), json!(30));
        assert_eq!(field_value("a ${{ 30 }}", &scope).unwrap(), json!("a 30"));
        assert_eq!(
            format!("{:#}", interpolate("${{ env.TRIAL", &scope).unwrap_err()),
            "`${{` without its closing `}}`"
        );
    }

    #[test]
    fn conditions_default_to_success() {
        assert!(status_if("env.TRIAL == '2'", true, false));
        assert!(!status_if("env.TRIAL == '2'", false, true));
        assert!(status_if("${{ always() }}", false, true));
        assert!(status_if("${{ !cancelled() }}", false, true));
        assert!(status_if("failure() && env.TRIAL == 2", false, true));
        assert!(!status_if("success()", false, true));
        assert_eq!(
            format!("{:#}", condition("${{ env.TRIAL }} == 2").unwrap_err()),
            "`if:` mixes text with `${{ }}`; GitHub reads that as a non-empty string, always true"
        );
    }
}
