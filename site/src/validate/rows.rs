//! An imported result's rows, each once: a published table lists a cache
//! backend once per runner and a build-cache cell (backend, CPU and memory
//! quota, request size, connections) once per table. A repeated row would
//! count twice in every ranking and plot it joins; a cache section without
//! a row says nothing and is left out instead.

use runner_bench_format::ImportedResult;

use super::findings::Collector;

pub(super) fn imported(c: &mut Collector, file: &str, i: &ImportedResult) {
    if let Some(cache) = &i.stages.cache {
        if cache.backends.is_empty() {
            c.push(file, "$.stages.cache.backends", "is empty; leave out a cache section that has no backend");
        }
        for (n, b) in cache.backends.iter().enumerate() {
            if cache.backends[..n].iter().any(|o| o.kind == b.kind && o.name == b.name) {
                c.push(
                    file,
                    format!("$.stages.cache.backends[{n}]"),
                    format!(
                        "backend \"{}\" ({}) is listed twice; a report lists each backend once",
                        b.name,
                        b.kind.name()
                    ),
                );
            }
        }
    }
    if let Some(http) = &i.stages.http_cache {
        for (t, table) in http.tables.iter().enumerate() {
            for (n, r) in table.rows.iter().enumerate() {
                let same = |o: &&runner_bench_format::imported::ImportedHttpCacheRow| {
                    o.backend == r.backend
                        && o.cpu == r.cpu
                        && o.cpu_quota == r.cpu_quota
                        && o.memory_quota_gb == r.memory_quota_gb
                        && o.value_bytes == r.value_bytes
                        && o.connections == r.connections
                };
                if table.rows[..n].iter().any(|o| same(&o)) {
                    c.push(
                        file,
                        format!("$.stages.http_cache.tables[{t}].rows[{n}]"),
                        format!(
                            "backend \"{}\" at {} bytes over {} connections is listed twice in this table",
                            r.backend, r.value_bytes, r.connections
                        ),
                    );
                }
            }
        }
    }
}
