//! The project's one pseudo-random generator, shared with the site (which
//! seeds its bootstrap intervals with it): see `runner_bench_format::rng`.

pub use runner_bench_format::rng::SplitMix64;
