//! Comparability keys (docs/methodology.md, "Comparability keys"): each
//! runner stage is compared wherever its key is equal, across profiles.
//! The published reports of protocols 5 and 6 share their CoreMark section
//! and differ in their disk section; measured profiles share a stage's key
//! exactly where the parameters that stage uses are equal.

mod common;

use std::path::Path;

use common::*;
use runner_bench_format::{AnyResult, Parameters, Profile, StageKind};
use serde_json::{Value, json};
use site::import::{ImportSource, import};
use site::keys::{PROFILE_PLACEHOLDER, key_inputs, stage_keys};

/// The seed report `name`'s text and its imported results.
fn seed(name: &str) -> (String, Vec<AnyResult>) {
    let bytes = std::fs::read(Path::new(SEEDS).join(name)).unwrap();
    let src = ImportSource {
        document: name.to_string(),
        bytes: bytes.clone(),
        imported_at: runner_bench_format::Timestamp::new("2026-11-29T00:00:00Z").unwrap(),
        measured_on: None,
    };
    let results = import(&src).unwrap().into_iter().map(|r| AnyResult::Imported(Box::new(r))).collect();
    (String::from_utf8(bytes).unwrap(), results)
}

const UBICLOUD: &str = "000_a5cbaa4571400c0a.txt";
const STARSLING: &str = "001_b3ab47e6311f8dcb.txt";
const LATCHKEY: &str = "002_35bd5cdb36088dd2.txt";

#[test]
fn the_published_protocols_compare_on_cpu_and_stay_apart_where_their_text_differs() {
    let (_, ubicloud) = seed(UBICLOUD);
    let (_, starsling) = seed(STARSLING);
    let (_, latchkey) = seed(LATCHKEY);
    // Protocol 6 (two Ubicloud runners) and protocol 5 (StarSling, Latchkey).
    let [u_arm, u_x64] = [&ubicloud[0], &ubicloud[1]].map(stage_keys);
    let [s, l] = [&starsling[0], &latchkey[0]].map(stage_keys);
    assert_eq!(u_arm, u_x64);
    assert_eq!(s, l);
    // CoreMark: the same parameters (5 samples of 30 s) and the same text.
    assert_eq!(u_x64.cpu, s.cpu);
    // Disk: protocol 6 prints sample counts and says so; protocol 5 does not.
    assert_ne!(u_x64.disk, s.disk);
    // Cache and internet: the same text, the gap sentence apart from the
    // profile it names, and the same endpoint.
    assert_eq!(u_x64.cache, s.cache);
    assert_eq!(u_x64.internet, s.internet);
}

/// The text a key hashes is the report's own: each stage's section text
/// stands in the seed document word for word (the cache section's gap
/// sentence with the profile's fingerprint where the key has the
/// placeholder).
#[test]
fn the_key_text_is_the_sections_text_as_published() {
    for name in [UBICLOUD, STARSLING, LATCHKEY] {
        let (text, results) = seed(name);
        let r = &results[0];
        let AnyResult::Imported(i) = r else { unreachable!() };
        let fingerprint = i.published_profile.as_ref().unwrap().fingerprint.to_string();
        for stage in StageKind::ALL {
            let inputs = key_inputs(r, stage);
            let section = inputs["text"].as_str().unwrap().replace(PROFILE_PLACEHOLDER, &fingerprint);
            for paragraph in section.split("\n\n") {
                assert!(text.contains(paragraph), "{name}, {}: {paragraph}", stage.name());
            }
        }
    }
    let (ubicloud, _) = seed(UBICLOUD);
    let (starsling, _) = seed(STARSLING);
    let disk = |t: &str| t.split("## Disk I/O\n\n").nth(1).unwrap().split("\n\n").next().unwrap().to_string();
    assert_ne!(disk(&ubicloud), disk(&starsling));
}

#[test]
fn the_key_inputs_of_each_stage_are_exactly_these() {
    let inputs = |s: StageKind| s.inputs().to_vec();
    assert_eq!(inputs(StageKind::Cpu), ["protocol", "cpu_samples", "cpu_seconds", "cpu_workload", "sample_timeout_s"]);
    assert_eq!(
        inputs(StageKind::Disk),
        [
            "protocol",
            "disk_samples",
            "disk_file_mib",
            "disk_op_seconds",
            "disk_seq_block_kib",
            "disk_rand_block_kib",
            "disk_queue_depth",
            "sample_timeout_s"
        ]
    );
    assert_eq!(
        inputs(StageKind::Cache),
        [
            "protocol",
            "cache_payload_mib",
            "cache_payload_files",
            "cache_trials",
            "cache_publication_gap_s",
            "cache_zstd_level",
            "sample_timeout_s"
        ]
    );
    assert_eq!(
        inputs(StageKind::Internet),
        [
            "protocol",
            "internet",
            "internet_samples",
            "internet_transfer_mib",
            "internet_max_request_mib",
            "internet_request_samples",
            "sample_timeout_s"
        ]
    );

    // A measured result: the stage's parameters, plus the CoreMark
    // implementation for the CPU stage and the endpoint for the internet.
    let golden = measured(&golden());
    assert_eq!(
        Value::Object(key_inputs(&golden, StageKind::Cpu)),
        json!({
            "stage": "cpu", "source": "measured", "protocol": 1, "cpu_samples": 5, "cpu_seconds": 30,
            "cpu_workload": "coremark-1.0-total-data-size-2000", "sample_timeout_s": 60, "implementation": "project"
        })
    );
    assert_eq!(
        Value::Object(key_inputs(&golden, StageKind::Internet)),
        json!({
            "stage": "internet", "source": "measured", "protocol": 1, "internet": true, "internet_samples": 3,
            "internet_transfer_mib": 1024, "internet_max_request_mib": 32, "internet_request_samples": 5,
            "sample_timeout_s": 60, "endpoint_url": "https://amsspeed.sharktech.net/backend/"
        })
    );

    // Another endpoint, another key: throughput to one server is not
    // compared with throughput to another.
    let mut elsewhere = common::golden();
    elsewhere["stages"]["internet"]["endpoint"]["url"] = json!("https://speed.example.org/backend/");
    let elsewhere = measured(&elsewhere);
    assert_ne!(key_inputs(&elsewhere, StageKind::Internet), key_inputs(&golden, StageKind::Internet));
    assert_eq!(key_inputs(&elsewhere, StageKind::Cpu), key_inputs(&golden, StageKind::Cpu));

    // An imported result: what its report prints for the stage, and the
    // section's text.
    let (_, starsling) = seed(STARSLING);
    let names = |s: StageKind| {
        let mut keys: Vec<String> = key_inputs(&starsling[0], s).keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(names(StageKind::Cpu), ["cpu_disk_samples", "cpu_seconds", "source", "stage", "text"]);
    assert_eq!(names(StageKind::Disk), ["cpu_disk_samples", "disk_file_mib", "source", "stage", "text"]);
    assert_eq!(names(StageKind::Cache), ["cache_payload_mib", "cache_publication_gap_s", "source", "stage", "text"]);
    assert_eq!(
        names(StageKind::Internet),
        ["endpoint", "internet", "internet_transfer_mib", "source", "stage", "text"]
    );
    assert_eq!(
        key_inputs(&starsling[0], StageKind::Cpu)["text"],
        "CoreMark, one execution thread, 2000-byte dataset. Higher iterations/s is better.\n\nLinux/Windows require \
         hard affinity to one logical CPU. macOS is explicitly **unpinned**: its one thread may migrate between CPUs. \
         These are runner + compiler measurements; VM host scheduling, other workloads, turbo, and image updates can \
         affect them."
    );
    assert_eq!(
        key_inputs(&starsling[0], StageKind::Cache)["text"].as_str().unwrap().split("\n\n").nth(1).unwrap(),
        "Profile `<profile>` waits 120 seconds after the save job finishes, before allocating its first restore \
         runner. All providers use this publication gap; it is excluded from transfer speeds. It gives cache \
         publication time to settle but does not guarantee cache availability. Misses remain failures; there are \
         no retries or payload fallbacks."
    );
}

fn measured(v: &Value) -> AnyResult {
    runner_bench_format::from_slice(&serde_json::to_vec(v).unwrap(), Path::new("result.json")).unwrap()
}

/// The golden result measured with `p`.
fn with_parameters(p: &Parameters) -> AnyResult {
    let mut v = golden();
    v["parameters"] = serde_json::to_value(p).unwrap();
    v["fingerprint"] = json!(p.fingerprint().to_string());
    measured(&v)
}

#[test]
fn measured_profiles_share_a_stage_exactly_where_its_parameters_are_equal() {
    let standard = stage_keys(&with_parameters(&Profile::Standard.parameters()));
    let quick = stage_keys(&with_parameters(&Profile::Quick.parameters()));
    // The quick profile changes a parameter of every stage.
    for s in StageKind::ALL {
        assert_ne!(standard.get(s), quick.get(s), "{}", s.name());
    }
    // A profile that differs from the standard one in disk parameters only
    // is compared with it on CoreMark, cache and internet.
    let disk_only = Parameters { disk_file_mib: 16, disk_op_seconds: 1, ..Profile::Standard.parameters() };
    let disk_only = stage_keys(&with_parameters(&disk_only));
    for s in StageKind::ALL {
        assert_eq!(standard.get(s) == disk_only.get(s), s != StageKind::Disk, "{}", s.name());
    }
    // Quick CoreMark settings with standard everything else: apart on
    // CoreMark only.
    let quick_cpu = Parameters { cpu_samples: 3, cpu_seconds: 1, ..Profile::Standard.parameters() };
    let quick_cpu = stage_keys(&with_parameters(&quick_cpu));
    assert_ne!(standard.cpu, quick_cpu.cpu);
    assert_eq!(
        (&standard.disk, &standard.cache, &standard.internet),
        (&quick_cpu.disk, &quick_cpu.cache, &quick_cpu.internet)
    );
    // The all-core stage's parameter is in no other stage's key: results
    // from before it are compared with later ones on every stage.
    let before = Parameters { cpu_allcore: None, ..Profile::Standard.parameters() };
    let before = stage_keys(&with_parameters(&before));
    for s in StageKind::ALL {
        assert_eq!(standard.get(s), before.get(s), "{}", s.name());
    }
    // A measured and an imported result never share a key.
    let (_, starsling) = seed(STARSLING);
    let imported = stage_keys(&starsling[0]);
    for s in StageKind::ALL {
        assert_ne!(standard.get(s), imported.get(s));
    }
}

/// The website's CoreMark table ranks the three CI providers together; its
/// disk tables keep protocol 6 apart from protocol 5; each row names its
/// whole-profile fingerprint.
#[test]
fn the_website_ranks_the_three_providers_together_on_cpu_only() {
    let out = tempfile::tempdir().unwrap();
    let results = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results"));
    build_into(results, out.path());
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    let (_, ubicloud) = seed(UBICLOUD);
    let (_, starsling) = seed(STARSLING);
    let [u, s] = [&ubicloud[0], &starsling[0]].map(stage_keys);
    assert_eq!(
        runners(&home, &format!("t-{}-cpu", s.cpu)),
        ["starsling-linux-x64", "ubicloud-linux-x64", "latchkey-linux-x64", "ubicloud-linux-arm64"]
    );
    assert_eq!(runners(&home, &format!("t-{}-disk", u.disk)), ["ubicloud-linux-x64", "ubicloud-linux-arm64"]);
    assert_eq!(runners(&home, &format!("t-{}-disk", s.disk)), ["starsling-linux-x64", "latchkey-linux-x64"]);
    assert_eq!(
        home.matches("<table class=\"sortable\" id=\"t-").count(),
        5,
        "cpu, 2 × disk, cache, internet (build-cache servers have their own section)"
    );
    // Issue 49: the section is named in words, its key and fingerprints
    // behind a details element.
    assert!(
        home.contains(&format!(
            "<h2 id=\"g-{}\">CoreMark: Published protocols 6 and 5, imported from published reports on Latchkey, \
         StarSling and Ubicloud runners, run dates not published</h2>\n<details><summary>What the group \
         shares</summary>Key <code>{}</code>; protocol 6, fingerprint <code>e021cd7ddc71</code>; protocol 5, \
         fingerprint <code>866df6f892c3</code>.</details>\n",
            s.cpu, s.cpu
        )),
        "{home}"
    );
    let csv = std::fs::read_to_string(out.path().join("data/coremark.csv")).unwrap();
    let lead: Vec<String> = csv.lines().skip(1).map(|l| l.split(',').take(5).collect::<Vec<_>>().join(",")).collect();
    assert_eq!(
        lead,
        [
            format!("866df6f892c3,5,{},starsling,starsling-linux-x64", s.cpu),
            format!("e021cd7ddc71,6,{},ubicloud,ubicloud-linux-x64", s.cpu),
            format!("866df6f892c3,5,{},latchkey,latchkey-linux-x64", s.cpu),
            format!("e021cd7ddc71,6,{},ubicloud,ubicloud-linux-arm64", s.cpu),
        ]
    );
}

/// The golden result with every disk sample's buffer in pages of `kib`.
fn with_buffer_pages(kib: &[u32]) -> Value {
    let mut v = golden();
    let samples = v["stages"]["disk"]["samples"].as_array_mut().unwrap();
    for (s, k) in samples.iter_mut().zip(kib.iter().cycle()) {
        s["buffer_page_kib"] = json!(k);
    }
    v
}

/// Disk samples through one huge page and through base pages are
/// different measurements on some virtual disks (docs/collector.md,
/// "disk"): apart on disk, together on every other stage; a file that does
/// not record its pages keeps the key it always had.
#[test]
fn the_disk_key_holds_the_buffer_page_sizes_where_the_file_records_them() {
    let unrecorded = measured(&golden());
    let huge = measured(&with_buffer_pages(&[2048]));
    let base = measured(&with_buffer_pages(&[4]));
    let mixed = measured(&with_buffer_pages(&[2048, 4]));
    assert_eq!(key_inputs(&huge, StageKind::Disk)["buffer_page_kib"], json!([2048]));
    assert_eq!(key_inputs(&mixed, StageKind::Disk)["buffer_page_kib"], json!([4, 2048]));
    assert_eq!(key_inputs(&unrecorded, StageKind::Disk).get("buffer_page_kib"), None);
    // Only the samples whose figures count: a failed one in base pages
    // does not make a mix.
    let mut failed_base = with_buffer_pages(&[2048]);
    let samples = failed_base["stages"]["disk"]["samples"].as_array_mut().unwrap();
    samples[0]["status"] = json!("error");
    samples[0]["message"] = json!("1 MiB sequential read: Input/output error");
    samples[0]["buffer_page_kib"] = json!(4);
    let failed_base = measured(&failed_base);
    assert_eq!(key_inputs(&failed_base, StageKind::Disk)["buffer_page_kib"], json!([2048]));
    let [u, h, b, m] = [&unrecorded, &huge, &base, &mixed].map(stage_keys);
    let disk = [&u.disk, &h.disk, &b.disk, &m.disk];
    for (i, a) in disk.iter().enumerate() {
        for c in &disk[i + 1..] {
            assert_ne!(a, c);
        }
    }
    for s in [StageKind::Cpu, StageKind::Cache, StageKind::Internet] {
        assert!([&h, &b, &m].iter().all(|k| k.get(s) == u.get(s)), "{}", s.name());
    }
}

/// A disk group's note says what its buffers were, in the home page and
/// in the table's own page.
#[test]
fn a_disk_group_says_what_its_samples_buffers_were() {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &with_buffer_pages(&[4]));
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    let note = "Each sample read and wrote through a buffer of 4 KiB pages, not one huge page (the collector asks \
                for one on Linux only, where the kernel may give none): on some virtual disks the 1 MiB figures \
                then depend on where in memory those pages lay.";
    assert_eq!(home.matches(note).count(), 1, "{home}");
    assert_eq!(site::model::disk_buffer_text(&[2048]), "Each sample read and wrote through one 2 MiB huge page.");
    assert_eq!(
        site::model::disk_buffer_text(&[4, 2048]),
        "The samples read and wrote through buffers of 4 KiB and 2 MiB pages: some got a huge page, some did not."
    );
    assert_eq!(site::model::disk_buffer_text(&[]), "");
}
