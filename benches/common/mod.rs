//! Shared by the criterion benches: prints throughput ratios between
//! functions of one group, read back from criterion's own estimates
//! (`target/criterion/<group>/<function>/new/estimates.json`), so the figures
//! in BENCHMARKS.md come from the same run as criterion's report.

#![allow(dead_code)] // each bench uses part of this

use std::path::{Path, PathBuf};

fn criterion_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("CRITERION_HOME") {
        return PathBuf::from(dir);
    }
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .display()
            .to_string()
    });
    Path::new(&target).join("criterion")
}

/// Criterion's directory name for an id (it replaces path-hostile characters).
fn dir_name(id: &str) -> String {
    id.chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            c => c,
        })
        .collect()
}

/// Mean time per iteration in nanoseconds of `group/function`, if measured.
pub fn mean_ns(group: &str, function: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(dir_name(group))
        .join(dir_name(function))
        .join("new")
        .join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("mean")?.get("point_estimate")?.as_f64()
}

/// Prints, for each `function` of `group`, its speed relative to `baseline`
/// (> 1.0 means faster than the baseline).
pub fn print_ratios(group: &str, ours: &str, baselines: &[&str]) {
    let Some(ours_ns) = mean_ns(group, ours) else {
        println!("ratio {group}: no estimate for {ours} (filtered out?)");
        return;
    };
    for base in baselines {
        match mean_ns(group, base) {
            Some(base_ns) => println!(
                "ratio {group}: {ours} is {:.2}x the throughput of {base}",
                base_ns / ours_ns
            ),
            None => println!("ratio {group}: no estimate for {base} (filtered out?)"),
        }
    }
}
