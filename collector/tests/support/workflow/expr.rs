//! GitHub Actions expressions, `${{ … }}`: parsed by
//! github-actions-expressions (zizmor's parser), evaluated here against
//! the run's contexts. The crate evaluates constant expressions only
//! (`consteval`), so what reads a context is walked here; the values keep
//! the crate's semantics (`Evaluation::sema`: truthiness, `==` without
//! regard to case and with GitHub's number coercion, text), and a function
//! call is handed back to the crate's `consteval` once its arguments are
//! values (`constant`).
//!
//! Values are JSON values (`serde_json::Value`), as GitHub's are: contexts
//! are objects, `toJSON`/`fromJSON` convert without loss.
//!
//! Anything this evaluator does not implement (an object filter,
//! `hashFiles`, a context not available where the expression stands) is an
//! error, never an empty string, so a workflow that uses it fails the
//! rehearsal instead of passing it unnoticed. A property missing from a
//! context whose properties are all known (`github.*`, `inputs.*`,
//! `needs.<job>.*`, `steps.<id>.*`, ...) is also an error: on GitHub it
//! would be an empty string, and almost always a typo.

use std::borrow::Cow;

use anyhow::{Context as _, anyhow, bail};
use github_actions_expressions::call::{Call, Function};
use github_actions_expressions::literal::Literal;
use github_actions_expressions::op::{BinExpr, BinOp, UnOp};
use github_actions_expressions::{Evaluation, Expr, Origin, SpannedExpr};
use serde_json::{Map, Value};

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

fn parse(text: &str) -> anyhow::Result<SpannedExpr<'_>> {
    Expr::parse(text).map_err(|e| anyhow!("{e}"))
}

// ---------------------------------------------------------------- templates

/// Where the `${{ … }}` of `text` are: (start of `${{`, end after `}}`).
/// The crate parses what is inside; finding the end is this scan's, since
/// a `}}` inside a string literal does not end it.
fn spans(text: &str) -> anyhow::Result<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(start) = text[from..].find("${{").map(|i| from + i) {
        let mut i = start + 3;
        let mut quoted = false;
        loop {
            let rest = &text[i..];
            if rest.is_empty() {
                bail!("`${{{{` without its closing `}}}}`");
            }
            if rest.starts_with('\'') {
                quoted = !quoted; // 'it''s' toggles twice, and stays inside
            } else if !quoted && rest.starts_with("}}") {
                break;
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
        out.push((start, i + 2));
        from = i + 2;
    }
    Ok(out)
}

/// Evaluates a string field: each `${{ … }}` replaced by its value as text.
pub(crate) fn interpolate(text: &str, scope: &Scope<'_>) -> anyhow::Result<String> {
    let mut out = String::new();
    let mut from = 0;
    for (start, end) in spans(text)? {
        out.push_str(&text[from..start]);
        // The caller names the field and its text in an error.
        out.push_str(&to_text(&eval_text(&text[start + 3..end - 2], scope)?));
        from = end;
    }
    out.push_str(&text[from..]);
    Ok(out)
}

/// Evaluates a field that may hold a non-string value (`timeout-minutes`,
/// `continue-on-error`, `runs-on`): a field that is one `${{ … }}` and
/// nothing else has that expression's value; any other text is a string.
pub(crate) fn field_value(text: &str, scope: &Scope<'_>) -> anyhow::Result<Value> {
    let trimmed = text.trim();
    match spans(trimmed)?.as_slice() {
        [(0, end)] if *end == trimmed.len() => eval_text(&trimmed[3..end - 2], scope),
        _ => Ok(Value::String(interpolate(text, scope)?)),
    }
}

/// Evaluates an `if:` field to whether it holds. The `${{ }}` around it is
/// optional; an expression that calls no status check function is
/// implicitly `success() && (…)`, as on GitHub. Text mixed with `${{ … }}`
/// is refused: GitHub evaluates it as a non-empty string, always true.
pub(crate) fn condition(text: &str, scope: &Scope<'_>) -> anyhow::Result<bool> {
    let trimmed = text.trim();
    let inner = match spans(trimmed)?.as_slice() {
        [] => trimmed,
        [(0, end)] if *end == trimmed.len() => &trimmed[3..end - 2],
        _ => bail!("`if:` mixes text with `${{{{ }}}}`; GitHub reads that as a non-empty string, always true"),
    };
    let e = parse(inner)?;
    let success = scope.status.is_some_and(|s| s.success);
    // `success() && (…)`: the expression is not evaluated when it fails.
    Ok((calls_status(&e) || success) && truthy(&eval(&e, scope)?))
}

fn eval_text(text: &str, scope: &Scope<'_>) -> anyhow::Result<Value> {
    eval(&parse(text)?, scope)
}

fn calls_status(e: &Expr<'_>) -> bool {
    match e {
        Expr::Call(c) => is_status(c.func) || c.args.iter().any(|a| calls_status(a)),
        Expr::Context(c) => c.parts.iter().any(|p| calls_status(p)),
        Expr::Index(e) | Expr::UnExpr { expr: e, .. } => calls_status(e),
        Expr::BinExpr(b) => calls_status(&b.lhs) || calls_status(&b.rhs),
        Expr::Literal(_) | Expr::Star | Expr::Identifier(_) => false,
    }
}

fn is_status(f: Function) -> bool {
    matches!(f, Function::Success | Function::Failure | Function::Cancelled | Function::Always)
}

// ---------------------------------------------------------------- values

fn evaluation(v: &Value) -> Evaluation {
    Evaluation::try_from(v.clone()).expect("a JSON number is an f64")
}

/// Truthiness, GitHub's: false, 0, NaN, '' and null are false.
pub(crate) fn truthy(v: &Value) -> bool {
    evaluation(v).as_boolean()
}

/// A value as text, as interpolation and the string functions see it.
pub(crate) fn to_text(v: &Value) -> String {
    evaluation(v).sema().to_string()
}

fn json(e: Evaluation) -> Value {
    e.try_into().unwrap_or(Value::Null)
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

/// Evaluates a parsed expression.
fn eval(e: &SpannedExpr<'_>, scope: &Scope<'_>) -> anyhow::Result<Value> {
    Ok(match &e.inner {
        Expr::Literal(l) => literal(l),
        Expr::Context(c) => {
            let mut parts = c.parts.iter();
            let head = parts.next().context("an empty context")?;
            // The value, and its path from a context while it is reached
            // through names only (`needs.save-1.outputs`), for `closed`.
            let (mut value, mut path) = match &head.inner {
                Expr::Identifier(name) => {
                    let name = name.as_str().to_ascii_lowercase();
                    let Some(v) = scope.contexts.get(&name) else {
                        let mut known: Vec<&str> = scope.contexts.keys().map(String::as_str).collect();
                        known.sort_unstable();
                        bail!("unrecognized named-value `{name}` here; available: {}", known.join(", "))
                    };
                    (v.clone(), Some(vec![name]))
                }
                _ => (eval(head, scope)?, None),
            };
            for part in parts {
                let name = match &part.inner {
                    Expr::Identifier(name) => Value::String(name.as_str().to_string()),
                    Expr::Index(index) if !matches!(index.inner, Expr::Star) => eval(index, scope)?,
                    _ => bail!("object filters (`.*`, `[*]`) are not supported by the rehearsal"),
                };
                (value, path) = member(value, path, &name)?;
            }
            value
        }
        Expr::UnExpr { op: UnOp::Not, expr } => Value::Bool(!truthy(&eval(expr, scope)?)),
        Expr::BinExpr(BinExpr { lhs, op, rhs }) => {
            let a = eval(lhs, scope)?;
            match op {
                // `&&` and `||` return an operand, as in JavaScript, and
                // leave the right one unevaluated when the left decides:
                // `&&` goes on past a truthy left, `||` past a falsy one.
                BinOp::And | BinOp::Or if truthy(&a) != (*op == BinOp::And) => a,
                BinOp::And | BinOp::Or => eval(rhs, scope)?,
                op => {
                    let (a, b) = (evaluation(&a), evaluation(&eval(rhs, scope)?));
                    let (a, b) = (a.sema(), b.sema());
                    Value::Bool(match op {
                        BinOp::Eq => a == b,
                        BinOp::Neq => a != b,
                        BinOp::Lt => a < b,
                        BinOp::Le => a <= b,
                        BinOp::Gt => a > b,
                        BinOp::Ge => a >= b,
                        BinOp::And | BinOp::Or => unreachable!("matched above"),
                    })
                }
            }
        }
        Expr::Call(c) => call(c, e.origin.raw, scope)?,
        Expr::Star | Expr::Identifier(_) | Expr::Index(_) => bail!("`{}` outside a context", e.origin.raw),
    })
}

fn literal(l: &Literal<'_>) -> Value {
    match l {
        Literal::String(s) => Value::String(s.to_string()),
        Literal::Number(n) => json(Evaluation::Number(*n)),
        Literal::Boolean(b) => Value::Bool(*b),
        Literal::Null => Value::Null,
    }
}

/// `base.name` or `base[index]`: a property of an object without regard to
/// case, an item of an array by number, else null; on a closed context's
/// object, a missing name is an error.
fn member(base: Value, path: Option<Vec<String>>, index: &Value) -> anyhow::Result<(Value, Option<Vec<String>>)> {
    let found = match (&base, index) {
        (Value::Object(o), Value::String(name)) => {
            o.get(name).or_else(|| o.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v)).cloned()
        }
        (Value::Array(a), Value::Number(n)) => n.as_u64().and_then(|i| a.get(i as usize)).cloned(),
        _ => None,
    };
    let Value::String(name) = index else { return Ok((found.unwrap_or(Value::Null), None)) };
    if found.is_none()
        && let Some(p) = &path
        && closed(p)
        && base.is_object()
    {
        bail!("{}.{name} does not exist", p.join("."));
    }
    let path = path.map(|mut p| {
        p.push(name.clone());
        p
    });
    Ok((found.unwrap_or(Value::Null), path))
}

/// A function call; `raw`, its text, names it in errors as it is written.
fn call(call: &Call<'_>, raw: &str, scope: &Scope<'_>) -> anyhow::Result<Value> {
    let name = raw.split('(').next().unwrap_or(raw);
    if is_status(call.func) {
        let Some(s) = scope.status else {
            bail!("{name}() is a status check function and may only be used in `if:`");
        };
        return Ok(Value::Bool(match call.func {
            Function::Success => s.success,
            Function::Failure => s.failure,
            Function::Cancelled => s.cancelled,
            _ => true,
        }));
    }
    if call.func == Function::HashFiles {
        bail!("{name}() is not supported by the rehearsal");
    }
    let args = call.args.iter().map(|a| eval(a, scope)).collect::<anyhow::Result<Vec<_>>>()?;
    let texts: Vec<String> = args.iter().map(|a| serde_json::to_string(a).expect("JSON")).collect();
    let constant = Call { func: call.func, args: texts.iter().zip(&args).map(|(t, a)| constant(t, a)).collect() };
    let value = Expr::Call(constant).consteval().with_context(|| format!("{raw}: cannot be evaluated"))?;
    Ok(json(value))
}

/// A value as a constant expression, for the crate's `consteval`: scalars
/// as literals; arrays and objects as `fromJSON('…')` of `json`, their text.
fn constant<'a>(json: &'a str, v: &Value) -> SpannedExpr<'a> {
    let inner = match v {
        Value::Null => Expr::Literal(Literal::Null),
        Value::Bool(b) => Expr::Literal(Literal::Boolean(*b)),
        Value::Number(n) => Expr::Literal(Literal::Number(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => Expr::Literal(Literal::String(Cow::Owned(s.clone()))),
        Value::Array(_) | Value::Object(_) => {
            Expr::Call(Call { func: Function::FromJSON, args: vec![constant(json, &Value::String(json.into()))] })
        }
    };
    SpannedExpr { origin: Origin::new(0..json.len(), json), inner }
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
        eval_text(text, &Scope { contexts: &c, status: None })
    }

    fn err(text: &str) -> String {
        format!("{:#}", run(text).unwrap_err())
    }

    fn status_if(text: &str, success: bool, failure: bool) -> bool {
        let c = contexts();
        let scope = Scope { contexts: &c, status: Some(Status { success, failure, cancelled: false }) };
        condition(text, &scope).unwrap()
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
        assert_eq!(err("hashFiles('x')"), "hashFiles() is not supported by the rehearsal");
        assert_eq!(err("format('{1}', 'a')"), "format('{1}', 'a'): cannot be evaluated");
        assert_eq!(err("always()"), "always() is a status check function and may only be used in `if:`");
    }

    #[test]
    fn syntax_errors_are_named() {
        assert_eq!(err("\"x\""), "invalid expression syntax: unexpected symbol (at offset 0)");
        assert_eq!(err("(1"), "invalid expression syntax: expected `)` (at offset 2)");
        assert_eq!(err("github.*"), "object filters (`.*`, `[*]`) are not supported by the rehearsal");
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
        let c = contexts();
        let scope = Scope { contexts: &c, status: Some(Status { success: true, failure: false, cancelled: false }) };
        assert_eq!(
            format!("{:#}", condition("${{ env.TRIAL }} == 2", &scope).unwrap_err()),
            "`if:` mixes text with `${{ }}`; GitHub reads that as a non-empty string, always true"
        );
    }
}
