//! One test per rejection of the strict reader, each asserting the exact
//! message a submitter sees: file, JSON path, reason.

use std::path::Path;

use runner_bench_format::{MAX_FILE_BYTES, from_slice};
use serde_json::{Value, json};

fn golden() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/result-v1.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Reads `value` as `results/x.json` and returns the error message.
fn error_of(value: &Value) -> String {
    error_of_bytes(&serde_json::to_vec_pretty(value).unwrap())
}

fn error_of_bytes(bytes: &[u8]) -> String {
    from_slice(bytes, Path::new("results/x.json")).expect_err("the reader accepted a bad file").to_string()
}

/// The golden file with the field at `pointer` replaced by `new`.
fn with(pointer: &str, new: Value) -> Value {
    let mut v = golden();
    *v.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer} not in golden")) = new;
    v
}

#[test]
fn unknown_field() {
    let mut v = golden();
    v["machine"]["gpu"] = json!("none");
    let err = error_of(&v);
    assert!(
        err.starts_with("results/x.json: $.machine.gpu: unknown field `gpu`, expected one of `os`, `os_release`"),
        "{err}"
    );
}

#[test]
fn missing_field() {
    let mut v = golden();
    v["machine"].as_object_mut().unwrap().remove("kernel");
    assert_eq!(error_of(&v), "results/x.json: $.machine: missing field `kernel` at line 39 column 3");
}

#[test]
fn wrong_type() {
    assert_eq!(
        error_of(&with("/machine/logical_cpus", json!("2"))),
        "results/x.json: $.machine.logical_cpus: invalid type: string \"2\", expected a whole number from 0 to 4294967295 at line 35 column \
         23"
    );
}

/// serde_json's messages about numbers name Rust types (`u32`); the
/// reader says which numbers the field takes.
#[test]
fn whole_numbers_out_of_range_or_written_as_floats() {
    let text = String::from_utf8(serde_json::to_vec_pretty(&golden()).unwrap()).unwrap();
    assert!(text.contains("\"logical_cpus\": 2,"), "the golden file's logical_cpus moved");
    let logical = |written: &str| {
        let text = text.replacen("\"logical_cpus\": 2,", &format!("\"logical_cpus\": {written},"), 1);
        error_of_bytes(text.as_bytes())
    };
    let field = "results/x.json: $.machine.logical_cpus";
    assert_eq!(logical("-1"), format!("{field}: -1 is not a whole number from 0 to 4294967295 at line 35 column 22"));
    assert_eq!(
        logical("2.0"),
        format!(
            "{field}: expected a whole number from 0 to 4294967295, found 2.0, which was read as a floating-point \
             number (such as one with a fraction or an exponent, or one too large) at line 35 column 23"
        )
    );
    assert_eq!(
        logical("99999999999999999999999"),
        format!(
            "{field}: expected a whole number from 0 to 4294967295, found 1e+23, which was read as a \
             floating-point number (such as one with a fraction or an exponent, or one too large) at line 35 column \
             43"
        )
    );
    assert_eq!(
        logical("4294967296"),
        format!("{field}: 4294967296 is not a whole number from 0 to 4294967295 at line 35 column 30")
    );
}

/// A `\u` escape of half a surrogate pair is no character; serde_json
/// calls it an "unexpected end of hex escape" or a "lone leading
/// surrogate".
#[test]
fn half_a_surrogate_pair() {
    let text = String::from_utf8(serde_json::to_vec_pretty(&golden()).unwrap()).unwrap();
    let label = |escape: &str| {
        let text = text.replacen("\"label\": \"", &format!("\"label\": \"{escape}"), 1);
        error_of_bytes(text.as_bytes())
    };
    let reason = "a \\u escape of half a UTF-16 surrogate pair (\\uD800 to \\uDFFF without its other half), which \
                  is no character; write the character itself, or both halves";
    assert_eq!(label("\\ud800x"), format!("results/x.json: $.runner.label: {reason} at line 107 column 21"));
    assert_eq!(label("\\udc00"), format!("results/x.json: $.runner.label: {reason} at line 107 column 20"));
    assert_eq!(
        label("\\u12"),
        "results/x.json: $: not valid JSON: an invalid escape: a backslash must be followed by one of \" \\ / b f n \
         r t, or by u and four hex digits at line 107 column 20"
    );
}

#[test]
fn non_finite_number() {
    let text = String::from_utf8(serde_json::to_vec_pretty(&golden()).unwrap()).unwrap();
    let text = text.replacen("\"elapsed_s\": 30.0151", "\"elapsed_s\": 1e999", 1);
    assert_eq!(
        error_of_bytes(text.as_bytes()),
        "results/x.json: $.stages.cpu.samples[0].elapsed_s: number out of range at line 415 column 28"
    );
}

#[test]
fn negative_value() {
    assert_eq!(
        error_of(&with("/stages/cpu/samples/0/elapsed_s", json!(-30.0))),
        "results/x.json: $.stages.cpu.samples[0].elapsed_s: -30 is negative; this value cannot be at line 415 column 28"
    );
}

#[test]
fn over_long_string() {
    let err = error_of(&with("/notices/0/message", json!("x".repeat(2001))));
    assert!(
        err.starts_with(
            "results/x.json: $.notices[0].message: text is 2001 characters long; at most 2000 are allowed at line"
        ),
        "{err}"
    );
}

#[test]
fn file_over_size_limit() {
    let big = vec![b' '; MAX_FILE_BYTES as usize + 1];
    assert_eq!(error_of_bytes(&big), "results/x.json: $: the file is 4194305 bytes; the limit is 4194304 bytes");
}

#[test]
fn id_not_a_slug() {
    assert_eq!(
        error_of(&with("/provider/id", json!("Example Cloud"))),
        "results/x.json: $.provider.id: \"Example Cloud\" is not a slug (1 to 64 lowercase letters, digits and \
         single dashes, starting and ending with a letter or digit) at line 103 column 25"
    );
}

#[test]
fn unsupported_format_version() {
    assert_eq!(
        error_of(&with("/format_version", json!(2))),
        "results/x.json: $.format_version: unsupported format version 2; this reader understands version 1"
    );
}

#[test]
fn missing_format_version() {
    let mut v = golden();
    v.as_object_mut().unwrap().remove("format_version");
    assert_eq!(error_of(&v), "results/x.json: $.format_version: missing; this reader understands format version 1");
}

#[test]
fn unknown_kind() {
    assert_eq!(
        error_of(&with("/kind", json!("estimated"))),
        "results/x.json: $.kind: must be \"measured\" or \"imported\""
    );
}

#[test]
fn not_json_and_not_an_object() {
    assert_eq!(
        error_of_bytes(b"{\"format_version\": 1,"),
        "results/x.json: $: not valid JSON: EOF while parsing an object at line 1 column 21"
    );
    assert_eq!(error_of_bytes(b"[1, 2]"), "results/x.json: $: a result file holds one JSON object");
    // A valid result behind a byte-order mark.
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(serde_json::to_vec(&golden()).unwrap());
    assert_eq!(
        error_of_bytes(&bom),
        "results/x.json: $: the file starts with a byte-order mark (EF BB BF), which JSON does not allow; save it as \
         UTF-8 without one"
    );
}

#[test]
fn bad_timestamp() {
    assert_eq!(
        error_of(&with("/provenance/started_at", json!("2026-11-29 10:00"))),
        "results/x.json: $.provenance.started_at: \"2026-11-29 10:00\" is not a UTC time in RFC 3339 form \
         (like 2026-11-29T22:48:25Z) at line 101 column 3"
    );
}

#[test]
fn reading_never_panics() {
    // Truncations and byte flips of a real file, every one of them: each
    // must come back as an error or a result, never a panic.
    let bytes = serde_json::to_vec_pretty(&golden()).unwrap();
    for cut in (0..bytes.len()).step_by(7) {
        // No strict prefix of one JSON object is a whole one.
        let err = from_slice(&bytes[..cut], Path::new("t.json")).unwrap_err();
        assert_eq!((err.field.as_str(), err.reason.starts_with("not valid JSON: ")), ("$", true), "{err}");
    }
    let mut state = 0x2545_f491_u32;
    for _ in 0..3000 {
        let mut copy = bytes.clone();
        for _ in 0..3 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let at = state as usize % copy.len();
            copy[at] = (state >> 8) as u8;
        }
        let _ = from_slice(&copy, Path::new("t.json"));
    }
}

#[test]
fn affinity_shapes() {
    let at = "/stages/cpu/samples/0/affinity";
    let err = |affinity: Value| error_of(&with(at, affinity));
    let field = "results/x.json: $.stages.cpu.samples[0].affinity";
    assert_eq!(
        err(json!({"mode": "pinned", "cpu": 1})),
        format!("{field}: missing field `group` at line 406 column 11")
    );
    assert_eq!(err(json!({"group": 0, "cpu": 1})), format!("{field}: missing field `mode` at line 406 column 11"));
    assert_eq!(
        err(json!({"mode": "unpinned", "cpu": 1})),
        format!("{field}: an unpinned affinity has no `cpu` or `group` at line 406 column 11")
    );
    assert_eq!(
        err(json!({"mode": "pinned", "cpu": null, "group": 0})),
        format!("{field}.cpu: invalid type: null, expected a whole number from 0 to 4294967295 at line 404 column 23")
    );
    assert_eq!(
        err(json!({"mode": "sideways"})),
        format!("{field}.mode: unknown variant `sideways`, expected `pinned` or `unpinned` at line 404 column 30")
    );
    assert_eq!(
        err(json!({"mode": "pinned", "cpu": 1, "group": 0, "node": 2})),
        format!("{field}.node: unknown field `node`, expected one of `mode`, `cpu`, `group` at line 407 column 18")
    );
}

/// A byte that is not UTF-8 inside a string: the reader checks the whole
/// document's UTF-8 before its fast path, and the careful reader says where.
#[test]
fn invalid_utf8() {
    let text = String::from_utf8(serde_json::to_vec_pretty(&golden()).unwrap()).unwrap();
    let mut bytes = text.into_bytes();
    let value = b"\"backend\": \"github\"";
    let at = bytes.windows(value.len()).position(|w| w == value).unwrap() + value.len() - 2;
    bytes[at] = 0xff;
    assert_eq!(
        error_of_bytes(&bytes),
        "results/x.json: $.stages.cache.pairs[0].backend: invalid unicode code point at line 128 column 28"
    );
}
